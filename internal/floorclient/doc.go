// Package floorclient is the smallest WAMP client the benchmark command
// (cmd/flockbench) compares the SDK with: the "floor" of client CPU per
// operation against a router in another process.
//
// It joins once (HELLO, CHALLENGE, AUTHENTICATE, WELCOME over
// gorilla/websocket with msgpack or JSON, using nexus's serializer for the
// handshake only) and then sends pre-encoded PUBLISH or CALL messages
// whose request ID is written before each send (in msgpack in place),
// reading only the message type and request ID of each reply. It has three
// ways of keeping requests in flight:
//
//   - [Conn.Do]: one goroutine writes a request and then reads its reply
//     (one in flight);
//   - [Caller.Do]: many goroutines, each with its own Caller, share the
//     connection; a pending map and one reader goroutine
//     ([Conn.StartReader]) hand each reply to its caller;
//   - [Conn.Pipeline]: one goroutine keeps N requests in flight, writing
//     the next one as each reply arrives.
//
// As a callee ([Conn.Register], [Conn.Serve]) it answers every INVOCATION
// with a pre-encoded YIELD, reading only its type and request ID.
//
// It is a measuring instrument, not a client to build on: no reconnect, no
// events, no payload decoding.
package floorclient
