// This file holds the runnable example of the data backend's refusal
// reports.

package client_test

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/client"
)

// A publication is fire-and-forget: a row the data backend refuses is
// dropped without an error. SubscribeToDataErrors tells the app about it.
func ExampleClient_SubscribeToDataErrors() {
	c, _, stop := tableExample()
	defer stop()
	ctx := context.Background()

	refused := make(chan *client.DataError, 1)
	sub, err := c.SubscribeToDataErrors(ctx, "sensordata", func(_ context.Context, e *client.DataError) {
		refused <- e
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Unsubscribe(ctx)
	// A row without tsp: the data backend drops it.
	_ = c.PublishToTable(ctx, "sensordata", client.Row{"temperature": 21.5})
	e := <-refused
	fmt.Println(e.Table, e.Operation, e.URI, e.Rows)
	fmt.Println(e.Message)
	// Output:
	// sensordata publish wamp.error.runtime_error 1
	// a row has no tsp value
}
