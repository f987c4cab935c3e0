// Loads the memtui-memory plugin with a stand-in for OpenClaw's plugin `api` and makes tool calls
// the way OpenClaw does (factory per agent with ctx.agentId / sessionKey / sandboxed, then execute),
// all at once; prints one JSON line: [{offered, ms, details}] in the order asked. Used by the tests
// and by bench/first_answer.py.
//   node plugin_shim.mjs PLUGIN_INDEX_JS PLUGIN_CONFIG_JSON OPENCLAW_CONFIG_JSON CALLS_JSON
//   CALLS_JSON: [{"agent": "main", "tool": "memory_search", "args": {...}, "sessionKey": "...", "sandboxed": false,
//                 "delayMs": 0}]   (delayMs: made that long after the plugin loads)
const [pluginFile, pluginConfigJson, liveConfigJson, callsJson] = process.argv.slice(2);
const plugin = (await import(pluginFile)).default;
const factories = {};
const warnings = [];
let capability = null;
const live = JSON.parse(liveConfigJson);
live.plugins ??= {};
live.plugins.entries ??= {};
live.plugins.entries["memtui-memory"] = { enabled: true, config: JSON.parse(pluginConfigJson) };
plugin.register({
  pluginConfig: live.plugins.entries["memtui-memory"].config,
  config: live,
  runtime: { config: { current: () => live } },
  logger: { warn: (m) => warnings.push(m), info() {}, debug() {}, error: (m) => warnings.push(m) },
  registerTool(factory, opts) { factories[opts.names[0]] = factory; },
  registerMemoryCapability(cap) { capability = cap; },
});
const calls = JSON.parse(callsJson);
const started = Date.now();
const results = await Promise.all(calls.map(async (c, i) => {
  if (c.delayMs) await new Promise((resolve) => setTimeout(resolve, c.delayMs));
  const ctx = { agentId: c.agent ?? "main", sessionKey: c.sessionKey ?? `agent:${c.agent ?? "main"}:main`, sandboxed: c.sandboxed === true };
  const made = factories[c.tool ?? "memory_search"](ctx);
  if (!made) return { offered: false };
  const t0 = Date.now();
  const answer = await made.execute(`call-${i}`, c.args ?? {});
  return { offered: true, ms: Date.now() - t0, details: answer.details };
}));
console.log(JSON.stringify({ results, capability: capability !== null, warnings, ms: Date.now() - started }));
