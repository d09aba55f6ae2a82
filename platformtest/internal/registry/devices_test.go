package registry

import "testing"

// TestDeviceIndexes: the devices are found by serial and by project and
// name through indexes that follow every change: a new device, a new
// serial, a deletion, a bulk creation undone, and a registry read again
// from its store.
func TestDeviceIndexes(t *testing.T) {
	st := NewMemoryStore()
	r, err := Open(testConfig(), st)
	if err != nil {
		t.Fatal(err)
	}
	var pr *Project
	var a, b *Device
	r.Do(func(s *State) {
		if pr, err = s.AddProject("plant", Spec{}); err != nil {
			t.Fatal(err)
		}
		if a, err = s.AddDevice("a", Spec{Project: pr, Serial: "serial-a", SerialSet: true}); err != nil {
			t.Fatal(err)
		}
		if b, err = s.AddDevice("b", Spec{Project: pr}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddDevice("c", Spec{Project: pr, Serial: "serial-a", SerialSet: true}); err == nil {
			t.Error("a taken serial was accepted")
		}
		if _, err := s.AddDevice("a", Spec{Project: pr}); err == nil {
			t.Error("a taken name was accepted")
		}
		if s.DeviceBySerial("serial-a") != a || s.DeviceBySerial(b.Serial) != b || s.DeviceNamed(pr, "b") != b {
			t.Error("a new device is not found by serial or name")
		}
		if err := s.SetSerial(a, "serial-a2"); err != nil {
			t.Fatal(err)
		}
		if s.DeviceBySerial("serial-a") != nil || s.DeviceBySerial("serial-a2") != a {
			t.Error("the index does not follow a new serial")
		}
		if _, err := s.CreateDevices(pr, []NewDevice{{Name: "d"}, {Name: "b"}}); err == nil {
			t.Error("a bulk creation with a taken name succeeded")
		}
		if s.DeviceNamed(pr, "d") != nil {
			t.Error("a device of an undone bulk creation is still found")
		}
		s.DeleteDevice(b)
		if s.DeviceBySerial(b.Serial) != nil || s.DeviceNamed(pr, "b") != nil {
			t.Error("a deleted device is still found")
		}
	})
	again, err := Open(testConfig(), st)
	if err != nil {
		t.Fatal(err)
	}
	again.View(func(s *State) {
		d := s.DeviceBySerial("serial-a2")
		if d == nil || d.Name != "a" || s.DeviceNamed(d.Project, "a") != d || s.DeviceBySerial(b.Serial) != nil {
			t.Errorf("the registry read again finds %v", d)
		}
	})
}
