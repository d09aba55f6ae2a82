package platformtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/flockgo/ironflock/platformtest"
)

// A platform started again on the same data folder has the same devices
// and credentials.
func ExampleWithDataDir() {
	tmp, _ := os.MkdirTemp("", "flockd-example")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "data")

	p, err := platformtest.Start(platformtest.WithDataDir(dir))
	if err != nil {
		fmt.Println(err)
		return
	}
	in := p.Install(p.AddDevice("press-1"), p.AddApp("sensors", ""), platformtest.Dev)
	id, secret := in.Credentials()
	p.Close()

	p, err = platformtest.Start(platformtest.WithDataDir(dir))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	again := p.InstallationOf(1, 1, platformtest.Dev)
	id2, secret2 := again.Credentials()
	fmt.Println("same credential:", id == id2 && secret == secret2)

	_, err = platformtest.CheckDataDir(dir)
	fmt.Println("held while it runs:", err != nil && strings.Contains(err.Error(), "is in use by flockd pid"))
	p.Close()
	rep, err := platformtest.CheckDataDir(dir)
	fmt.Println(rep.Devices, "device,", rep.Installations, "installation,", err)
	// Output:
	// same credential: true
	// held while it runs: true
	// 1 device, 1 installation, <nil>
}

// Reconcile brings a platform in line with a seed, as flockd does with its
// configuration at every start: what the seed no longer lists goes.
func ExamplePlatform_Reconcile() {
	p, err := platformtest.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	seed := func(devices ...string) *platformtest.Seed {
		s := &platformtest.Seed{Projects: []platformtest.SeedProject{{Name: "plant"}}}
		for _, d := range devices {
			s.Projects[0].Devices = append(s.Projects[0].Devices, platformtest.SeedDevice{Name: d})
		}
		return s
	}
	first, _ := p.Reconcile(seed("press-1", "press-2"))
	second, _ := p.Reconcile(seed("press-1"))
	fmt.Println(len(first.Devices), "devices, then", len(second.Devices))
	fmt.Println("press-1 kept its serial:", first.Devices[0].Serial() == second.Devices[0].Serial())
	fmt.Println("press-2 is gone:", p.DeviceByKey(first.Devices[1].Key()) == nil)
	// Output:
	// 2 devices, then 1
	// press-1 kept its serial: true
	// press-2 is gone: true
}
