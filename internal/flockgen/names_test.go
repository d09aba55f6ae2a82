package flockgen

import "testing"

func TestGoName(t *testing.T) {
	for _, tc := range []struct {
		id, want string
		ok       bool
	}{
		{"machine_state", "MachineState", true},
		{"vibration_rms", "VibrationRMS", true},
		{"api_key", "APIKey", true},
		{"id", "ID", true},
		{"device_key", "DeviceKey", true},
		{"sensorId", "SensorID", true},
		{"HTTPServer", "HTTPServer", true},
		{"DEVICE_NAME", "DeviceName", true},
		{"firmware-images", "FirmwareImages", true},
		{"machines.set_limits", "MachinesSetLimits", true},
		{"co2_level", "Co2Level", true},
		{"type", "Type", true},
		{"func", "Func", true},
		{"3d_model", "X3dModel", true},
		{"tëmp_c", "TëmpC", true},
		{"hysteresis_ms", "HysteresisMs", true},
		{"___", "", false},
		{"", "", false},
	} {
		got, ok := GoName(tc.id)
		if got != tc.want || ok != tc.ok {
			t.Errorf("GoName(%q) = %q, %v; want %q, %v", tc.id, got, ok, tc.want, tc.ok)
		}
	}
}
