// Package wsframe reads the header of a WebSocket frame (RFC 6455 §5.2):
// its length and its payload's, for the code on either side of the
// platform's links that follows frames under gorilla/websocket (the
// client's frameConn, the fake router's lent reader) without decoding
// them.
package wsframe

// MaxHeader is the longest frame header: 2 bytes, 8 of extended length
// and 4 of mask.
const MaxHeader = 14

// HeaderLen returns the length of a header whose second byte is b1: 2,
// plus 2 or 8 for an extended payload length, plus 4 when it is masked
// (as a client's frames are).
func HeaderLen(b1 byte) int {
	n := 2
	switch b1 & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b1&0x80 != 0 {
		n += 4
	}
	return n
}

// PayloadLen returns the payload length a complete header gives.
func PayloadLen(hdr *[MaxHeader]byte) uint64 {
	switch l := hdr[1] & 0x7f; l {
	case 126:
		return uint64(hdr[2])<<8 | uint64(hdr[3])
	case 127:
		var n uint64
		for _, b := range hdr[2:10] {
			n = n<<8 | uint64(b)
		}
		return n
	default:
		return uint64(l)
	}
}
