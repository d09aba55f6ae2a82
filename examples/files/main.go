// Command files stores and lists files in an app's managed object storage
// and prints a share URL, against the embedded fake platform:
//
//	go run ./examples/files
//
// With -device it runs as a real device app instead, with the
// environment the device agent injects (DEVICE_SERIAL_NUMBER, SWARM_KEY,
// APP_KEY, …); the app's data template must then declare the namespace
// "reports" or none at all.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/platformtest"
)

func main() {
	device := flag.Bool("device", false, "run as a device app with the environment of the device agent instead of the embedded fake")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, *device); err != nil {
		fmt.Fprintln(os.Stderr, "files:", err)
		os.Exit(1)
	}
}

// dataTemplate is the app's .ironflock/data-template.yml: two namespaces.
const dataTemplate = `
data:
  tables: []
files:
  quotaBytes: 104857600
  namespaces:
    - name: default
      description: Everything else
    - name: reports
      description: Daily production reports
      contentTypes: ["text/csv", "application/pdf"]
      maxObjectBytes: 10485760
`

func run(ctx context.Context, out io.Writer, device bool) error {
	var opts []client.Option
	if !device {
		// The fake platform: one project, one app on one device.
		p, err := platformtest.Start()
		if err != nil {
			return err
		}
		defer p.Close()
		inst := p.Install(p.AddDevice("press-1"), p.AddApp("files-demo", dataTemplate), platformtest.Dev)
		opts = append(opts, client.WithEnv(inst.Env()))
		fmt.Fprintf(out, "platform  listening on %s\n", p.HTTPURL())
	}
	c, err := client.New(opts...)
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Stop(context.Background())
	st := files.New(c)

	cat, err := st.Catalog(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "catalog   %d namespaces, inline limit %d bytes, direct transfers %v\n",
		len(cat.Namespaces), cat.InlineMaxBytes, cat.PresignAvailable)

	// Three small reports go through the router in one call each.
	for day := 1; day <= 3; day++ {
		csv := fmt.Sprintf("machine,parts\npress-1,%d\n", 1000+day)
		key := fmt.Sprintf("2026/01/%02d.csv", day)
		o, err := st.Put(ctx, key, []byte(csv), files.Namespace("reports"), files.ContentType("text/csv"))
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "stored    reports/%s (%d bytes)\n", o.Key, o.Size)
	}

	// A log over the inline limit streams directly to the object store.
	size := cat.InlineMaxBytes + 1<<20
	var last int64
	o, err := st.PutReader(ctx, "logs/press-1.log", io.LimitReader(repeat('x'), size), size,
		files.ContentType("text/plain"), files.Progress(func(done, total int64) { last = done }))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "stored    default/%s (%d bytes directly, progress %d%%)\n", o.Key, o.Size, last*100/size)

	// One page of the reports, folder by folder, then every report.
	page, err := st.List(ctx, files.Namespace("reports"), files.Prefix("2026/"))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "list      reports/2026/: folders %v\n", page.Prefixes)
	for o, err := range st.Iter(ctx, files.Namespace("reports")) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "report    %s %d bytes, modified %s\n", o.Key, o.Size, o.LastModified.Format(time.DateOnly))
	}
	u, err := st.Usage(ctx, files.Detail())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "usage     %d objects, %d bytes (reports %d, default %d)\n",
		u.ObjectCount, u.SizeBytes, u.PerNamespace["reports"], u.PerNamespace["default"])

	// A share URL: anyone holding it may read the report until it expires.
	sh, err := st.ShareURL(ctx, "2026/01/03.csv", files.Namespace("reports"), files.ExpiresIn(10*time.Minute))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "share URL (valid %v) %s\n", sh.ExpiresIn, sh.URL)
	body, err := fetch(ctx, sh.URL)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "shared    %q\n", body)
	fmt.Fprintln(out, "done")
	return nil
}

// fetch reads a URL without credentials.
func fetch(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("share URL answered %s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// repeat is an endless reader of one byte.
func repeat(b byte) io.Reader { return &repeater{b} }

type repeater struct{ b byte }

func (r *repeater) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.b
	}
	return len(p), nil
}
