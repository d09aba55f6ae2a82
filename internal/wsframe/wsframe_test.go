package wsframe

import "testing"

// TestHeader: the lengths of headers of every payload-length form, masked
// and not.
func TestHeader(t *testing.T) {
	cases := []struct {
		hdr     [MaxHeader]byte
		hlen    int
		payload uint64
	}{
		{[MaxHeader]byte{0x82, 5}, 2, 5},
		{[MaxHeader]byte{0x82, 0x80 | 125}, 6, 125},
		{[MaxHeader]byte{0x81, 126, 0x01, 0x00}, 4, 256},
		{[MaxHeader]byte{0x81, 0x80 | 126, 0xff, 0xff}, 8, 65535},
		{[MaxHeader]byte{0x82, 127, 0, 0, 0, 1, 0, 0, 0, 2}, 10, 1<<32 | 2},
		{[MaxHeader]byte{0x82, 0x80 | 127, 0, 0, 0, 0, 0, 1, 0, 0}, 14, 1 << 16},
		{[MaxHeader]byte{0x89, 0}, 2, 0},
	}
	for _, c := range cases {
		if got := HeaderLen(c.hdr[1]); got != c.hlen {
			t.Errorf("HeaderLen(%#x) = %d, want %d", c.hdr[1], got, c.hlen)
		}
		if got := PayloadLen(&c.hdr); got != c.payload {
			t.Errorf("PayloadLen(% x) = %d, want %d", c.hdr[:c.hlen], got, c.payload)
		}
	}
}
