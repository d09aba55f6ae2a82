// This file holds the refusals of the package.

package typed

import (
	"fmt"

	"github.com/flockgo/ironflock/client"
)

// invalidArg reports an argument refused before anything was sent; it
// matches client.ErrInvalidArgument.
func invalidArg(format string, a ...any) error {
	return fmt.Errorf("%w: %s", client.ErrInvalidArgument, fmt.Sprintf(format, a...))
}
