// flockbench's trace interop check with autobahn-js (trace_interop_test.go,
// build tag interop): as a subscriber and a callee it takes the EVENT and
// INVOCATION of an SDK client with trace propagation, whose details carry
// _traceparent and _tracestate (docs/wire.md §13), and prints each as a
// JSON line; on a line on its standard input it publishes to and calls the
// SDK client, prints {"ok":true,…} and leaves. Connection and URIs come
// from the PROBE_* environment variables; the serializer (msgpack, json)
// is its argument.

'use strict';
const autobahn = require('autobahn');
const readline = require('readline');
const env = process.env;
function out(o) { process.stdout.write(JSON.stringify(o) + '\n'); }
{
  const ser = process.argv[2] || 'msgpack';
  const conn = new autobahn.Connection({
    url: env.PROBE_URL, realm: env.PROBE_REALM,
    protocols: [ser === 'json' ? 'wamp.2.json' : 'wamp.2.msgpack'],
    serializers: [ser === 'json' ? new autobahn.serializer.JSONSerializer() : new autobahn.serializer.MsgpackSerializer()],
    authmethods: ['wampcra'], authid: env.PROBE_AUTHID,
    onchallenge: (s, m, extra) => autobahn.auth_cra.sign(env.PROBE_SECRET, extra.challenge),
    max_retries: 0,
  });
  conn.onopen = async (session) => { try {
    await session.subscribe(env.PROBE_TOPIC, (args, kwargs, details) => {
      out({ kind: 'event', args, details: Object.assign({}, details) });
    });
    await session.register(env.PROBE_PROC, (args, kwargs, details) => {
      out({ kind: 'invocation', args, details: { procedure: details.procedure, caller_authid: details.caller_authid } });
      return args[0];
    });
    } catch (e) { out({ setup_error: JSON.stringify(e) }); return; }
    out({ ready: true });
    const rl = readline.createInterface({ input: process.stdin });
    rl.on('line', async () => {
      try {
        await session.publish(env.PROBE_BACK, [{ from: 'autobahn-js' }], {}, { acknowledge: true });
        const r = await session.call(env.PROBE_SDKPROC, [{ from: 'autobahn-js' }]);
        out({ ok: true, result: r });
      } catch (e) {
        out({ ok: false, error: String(e && (e.error || e)) });
      }
      conn.close();
    });
  };
  conn.onclose = (reason, details) => {
    if (reason !== 'closed') {
      out({ closed: reason, details });
    }
    return true;
  };
  conn.open();
}
