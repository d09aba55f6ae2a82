// flockbench's optional autobahn-js comparison: CPU per operation of
// acknowledged publish (1 and 16 in flight) and call (1 and 16 callers, in
// msgpack, and in JSON, autobahn's default serializer) against a flockd, measured with process.cpuUsage() over a fixed
// interval after a warm-up. flockbench -with-js runs it with the
// connection and payload in environment variables and reads one JSON line
// per scenario and interval (FLOCKBENCH_COUNT of them) from its standard
// output:
//
//   {"scenario":"pub1","ops":1234,"wall_ms":3000.1,"cpu_us":98765}
//
// autobahn 26 uses the WebSocket built into Node.js (22 and later; on
// Node.js 20 run it with --experimental-websocket, as flockbench does).

'use strict';

const autobahn = require('autobahn');

function need(name) {
  const v = process.env[name];
  if (v === undefined || v === '') {
    throw new Error(`environment variable ${name} is not set`);
  }
  return v;
}

const cfg = {
  url: need('FLOCKBENCH_WS_URL'),
  realm: need('FLOCKBENCH_REALM'),
  authid: need('FLOCKBENCH_AUTHID'),
  secret: need('FLOCKBENCH_SECRET'),
  topic: need('FLOCKBENCH_TOPIC'),
  procedure: process.env.FLOCKBENCH_PROCEDURE || '',
  row: JSON.parse(need('FLOCKBENCH_ROW')),
  kwargs: JSON.parse(need('FLOCKBENCH_KWARGS')),
  scenarios: need('FLOCKBENCH_SCENARIOS').split(','),
  durationMs: Number(need('FLOCKBENCH_DURATION_MS')),
  warmupMs: Number(need('FLOCKBENCH_WARMUP_MS')),
  count: Number(process.env.FLOCKBENCH_COUNT || '1'),
};

// The row's floats must stay floats on the wire, as the Go clients send
// them: JSON.parse makes 21.5 a number either way, and msgpack5 with
// forceFloat64 (autobahn's setting) writes non-integers as float64.

// connect joins with msgpack, or with JSON when json is set.
function connect(json) {
  return new Promise((resolve, reject) => {
    const conn = new autobahn.Connection({
      url: cfg.url,
      realm: cfg.realm,
      protocols: [json ? 'wamp.2.json' : 'wamp.2.msgpack'],
      serializers: [json ? new autobahn.serializer.JSONSerializer() : new autobahn.serializer.MsgpackSerializer()],
      authmethods: ['wampcra'],
      authid: cfg.authid,
      onchallenge: (session, method, extra) => {
        if (method !== 'wampcra') {
          throw new Error(`unexpected auth method ${method}`);
        }
        return autobahn.auth_cra.sign(cfg.secret, extra.challenge);
      },
      max_retries: 0,
    });
    conn.onopen = (session) => resolve({ conn, session });
    conn.onclose = (reason, details) => {
      reject(new Error(`connection closed: ${reason} ${JSON.stringify(details)}`));
      return true; // do not reconnect
    };
    conn.open();
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// run keeps `inFlight` loops of op going for the warm-up and cfg.count
// measured intervals, and returns the figures of each interval.
async function run(name, inFlight, op) {
  let ops = 0;
  let stop = false;
  let failure = null;
  const loops = [];
  for (let i = 0; i < inFlight; i++) {
    loops.push((async () => {
      while (!stop) {
        await op();
        ops++;
      }
    })().catch((err) => { failure = err; stop = true; }));
  }
  await sleep(cfg.warmupMs);
  const out = [];
  for (let i = 0; i < cfg.count && !failure; i++) {
    const ops0 = ops;
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await sleep(cfg.durationMs);
    const cpu = process.cpuUsage(cpu0);
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    out.push({ scenario: name, ops: ops - ops0, wall_ms: wallMs, cpu_us: cpu.user + cpu.system });
  }
  stop = true;
  await Promise.all(loops);
  if (failure) {
    throw failure;
  }
  return out;
}

async function main() {
  const args = [cfg.row];
  // Each scenario: its format and what it runs on a session of it.
  const scenarios = {
    pub1: [false, (s) => run('pub1', 1, () => s.publish(cfg.topic, args, cfg.kwargs, { acknowledge: true }))],
    pub16: [false, (s) => run('pub16', 16, () => s.publish(cfg.topic, args, cfg.kwargs, { acknowledge: true }))],
    call1: [false, (s) => run('call1', 1, () => s.call(cfg.procedure, args))],
    call16: [false, (s) => run('call16', 16, () => s.call(cfg.procedure, args))],
    'call1-json': [true, (s) => run('call1-json', 1, () => s.call(cfg.procedure, args))],
    'call16-json': [true, (s) => run('call16-json', 16, () => s.call(cfg.procedure, args))],
  };
  const sessions = {};
  for (const name of cfg.scenarios) {
    const sc = scenarios[name];
    if (!sc) {
      throw new Error(`unknown scenario ${name}`);
    }
    const [json, fn] = sc;
    if (!sessions[json]) {
      sessions[json] = await connect(json);
    }
    for (const r of await fn(sessions[json].session)) {
      process.stdout.write(JSON.stringify(r) + '\n');
    }
  }
  for (const { conn } of Object.values(sessions)) {
    conn.onclose = () => true;
    conn.close();
  }
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`autobahn-js bench: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
