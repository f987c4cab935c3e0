// memtui-memory: memory_search / memory_get answered by memtui, for the agents `memtui connect` lists,
// beside OpenClaw's own memory plugin (memory-core), which keeps the memory slot and everything else.
//
// Shipped inside the openclaw-memtui wheel; `memtui connect --agent ID` copies it (stamped with the
// memtui version) into a private folder of memtui's data dir, puts that folder in plugins.load.paths
// and the agent in plugins.entries.memtui-memory.config.agents. The manifest has no `kind` and this
// file registers no memory capability: OpenClaw resolves each agent's tools with the first plugin
// factory that returns one (resolvePluginToolsFromRegistry), plugins from plugins.load.paths come
// before bundled ones, and memory-core answers every agent this factory returns null for. Its
// "Memory Recall" prompt section is built from the tool names a run has, so it stays for everyone.
//
// Each call goes to one `memtui serve` for this OpenClaw state, over a unix socket: one JSON line
// out, one back. Nothing stands in for it: the socket and its folder must be this user's and private
// (0700 / 0600), or the call is refused. A server that is not running is started (detached, so the
// next turn finds it warm; it exits when idle); one that stops answering is replaced. Every wait is
// bounded: a memtui that is missing, down or slow gives the agent a "memory unavailable" answer within
// CALL_BUDGET_MS, never a hang, and loading this file can never fail (an error here would fail every
// agent turn).

import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

const PLUGIN_ID = "memtui-memory";
const PLUGIN_VERSION = "__MEMTUI_VERSION__"; // replaced by `memtui connect` when it copies the plugin
const PROTOCOL = 1;
const START_TIMEOUT_MS = 15000; // a cold Python start on a busy 2-core machine
const CALL_TIMEOUT_MS = 20000;
const CALL_BUDGET_MS = 25000; // all of one call, below OpenClaw's own 30 s memory-search deadline
const PING_TIMEOUT_MS = 2000; // a server that accepts but cannot say "pong" in this long is hung
const RESPAWN_AFTER_MS = 10000; // a server that did not come up is not started again at every retry

// the parameters OpenClaw's own tools take (memory-tool-contract.ts), so a model's call is unchanged
const SEARCH_PARAMETERS = {
  type: "object",
  properties: {
    query: { type: "string" },
    maxResults: { type: "integer", minimum: 1 },
    minScore: { type: "number" },
    corpus: { type: "string", enum: ["memory", "wiki", "all", "sessions"] },
  },
  required: ["query"],
  additionalProperties: false,
};
const GET_PARAMETERS = {
  type: "object",
  properties: {
    path: { type: "string" },
    from: { type: "integer", minimum: 1 },
    lines: { type: "integer", minimum: 1 },
    corpus: { type: "string", enum: ["memory", "wiki", "all"] },
  },
  required: ["path"],
  additionalProperties: false,
};
const SEARCH_DESCRIPTION =
  "Mandatory recall step: search MEMORY.md, USER.md, Markdown files under memory/, configured extra paths and " +
  "indexed session transcripts before answering questions about prior work, decisions, dates, people, " +
  "preferences, or todos. Ranked by memtui with the ranking the user tuned and saved (each result has a " +
  "`breakdown` of its score). `corpus=memory` restricts hits to memory files, `corpus=sessions` to session " +
  "transcripts. If response has disabled=true or a warning, tell the user and include the warning/action guidance.";
const GET_DESCRIPTION =
  "Safe exact excerpt read from MEMORY.md, USER.md, Markdown files under memory/ and configured extra paths, " +
  "by a path memory_search returned. Defaults to a bounded excerpt when lines are omitted and includes " +
  "truncation/continuation info (nextFrom) when more content exists. status=ok means the excerpt was read; " +
  "status=not_found means the path is not a memory file; status=error means the read failed.";

const lastSpawn = new Map(); // socket path -> { at, error }

function pluginConfig(api) {
  try {
    const live = api.runtime?.config?.current?.();
    const entry = live?.plugins?.entries?.[PLUGIN_ID];
    if (entry && typeof entry === "object") return entry.config ?? {};
  } catch {
    // fall back to the config this plugin was registered with
  }
  return api.pluginConfig ?? {};
}

function liveConfig(api) {
  try {
    return api.runtime?.config?.current?.() ?? api.config ?? {};
  } catch {
    return api.config ?? {};
  }
}

function serverConfig(api) {
  const server = pluginConfig(api).server;
  return server && typeof server.socket === "string" && Array.isArray(server.command) ? server : undefined;
}

function isConnected(api, agentId) {
  const agents = pluginConfig(api).agents;
  return Array.isArray(agents) && agents.includes(agentId);
}

// why OpenClaw gives this agent no memory search ("" when it does): memtui then offers nothing either.
// The same rules as OpenClaw's resolveMemorySearchConfig / resolveSlotSelection, on its live config
// (its $include already resolved): the agent's own memory.search.enabled wins over memory.search's,
// and a memory slot of "none" turns memory off for every agent.
function memoryOff(config, agentId) {
  const slot = config?.plugins?.slots?.memory;
  if (typeof slot === "string" && slot.trim().toLowerCase() === "none") return 'plugins.slots.memory is "none"';
  const own = config?.agents?.entries?.[agentId]?.memory?.search?.enabled;
  if (own === false) return `agents.entries.${agentId}.memory.search.enabled is false`;
  if (own === undefined && config?.memory?.search?.enabled === false) return "memory.search.enabled is false";
  return "";
}

function jsonResult(payload) {
  return { content: [{ type: "text", text: JSON.stringify(payload, null, 2) }], details: payload };
}

// OpenClaw's rule for citations (tools.citations.ts): memory.citations on/off, "auto" = direct chats only
function includeCitations(config, sessionKey) {
  const mode = config?.memory?.citations;
  if (mode === "on") return true;
  if (mode === "off") return false;
  const parts = String(sessionKey ?? "").toLowerCase().split(":");
  const rest = parts[0] === "agent" ? parts.slice(2) : [];
  return !(rest.includes("channel") || rest.includes("group"));
}

function citationsMode(config) {
  const mode = config?.memory?.citations;
  return mode === "on" || mode === "off" ? mode : "auto";
}

function refused(message) {
  const error = new Error(message);
  error.code = "EMEMTUIREFUSED"; // never retried, never answered by starting a server
  return error;
}

// The socket's folder and the socket itself must be this user's and private: anyone else who could
// create either could read the agent's queries and plant answers. A folder that does not exist yet
// is made by the server (private); one that exists and is not private is refused, never used.
function checkPrivate(socketPath) {
  if (typeof process.getuid !== "function") return; // no unix users (Windows): nothing to compare
  const uid = process.getuid();
  const folder = path.dirname(socketPath);
  let st;
  try {
    st = fs.lstatSync(folder);
  } catch (error) {
    if (error?.code === "ENOENT") return;
    throw refused(`cannot check memtui's socket folder ${folder}: ${error?.code ?? error}`);
  }
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) {
    throw refused(`memtui's socket folder ${folder} is not a private folder of this user (owner ${st.uid}, ` +
      `mode ${(st.mode & 0o777).toString(8)}); refusing to use it`);
  }
  try {
    st = fs.lstatSync(socketPath);
  } catch (error) {
    if (error?.code === "ENOENT") return;
    throw refused(`cannot check memtui's socket ${socketPath}: ${error?.code ?? error}`);
  }
  if (!st.isSocket() || st.uid !== uid || (st.mode & 0o077) !== 0) {
    throw refused(`memtui's socket ${socketPath} is not a private socket of this user (owner ${st.uid}, ` +
      `mode ${(st.mode & 0o777).toString(8)}); refusing to use it`);
  }
}

// one request on one connection; rejects with err.code "ENOENT"/"ECONNREFUSED" when nothing listens,
// err.sent = false when the request never reached a server (safe to send again)
function exchange(socketPath, request, timeoutMs) {
  return new Promise((resolve, reject) => {
    let data = "";
    let settled = false;
    let sent = false;
    let answered = false;
    const sock = net.createConnection({ path: socketPath });
    const finish = (error, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      if (error) {
        error.sent ??= sent;
        error.answered = answered;
        reject(error);
      } else resolve(value);
    };
    const timer = setTimeout(() => {
      const error = new Error(`memtui did not answer within ${Math.round(timeoutMs / 1000)}s`);
      error.code = "ETIMEDOUT";
      finish(error);
    }, Math.max(1, timeoutMs));
    sock.setEncoding("utf8");
    sock.on("connect", () => {
      sent = true;
      sock.write(`${JSON.stringify(request)}\n`);
    });
    sock.on("data", (chunk) => {
      answered = true;
      data += chunk;
      const end = data.indexOf("\n");
      if (end < 0) {
        if (data.length > 64 * 1024 * 1024) finish(new Error("memtui's answer is larger than 64 MiB"));
        return;
      }
      try {
        finish(null, JSON.parse(data.slice(0, end)));
      } catch {
        finish(new Error("memtui's answer is not JSON"));
      }
    });
    sock.on("error", (error) => finish(error));
    sock.on("close", () => {
      const error = new Error("memtui closed the connection without an answer");
      error.code = "ECLOSED";
      finish(error);
    });
  });
}

function startServer(server) {
  const previous = lastSpawn.get(server.socket);
  // one start at a time: a server still coming up is waited for, one that has ended (an idle exit, or
  // "another server answers") is not, so a call after an idle exit starts the next one at once
  if (previous && !previous.exited && Date.now() - previous.at < RESPAWN_AFTER_MS) return previous;
  const record = { at: Date.now(), error: "", exited: false };
  lastSpawn.set(server.socket, record);
  try {
    let out = "ignore";
    if (typeof server.log === "string" && server.log) {
      fs.mkdirSync(path.dirname(server.log), { recursive: true, mode: 0o700 });
      out = fs.openSync(server.log, "a", 0o600);
    }
    const child = spawn(server.command[0], server.command.slice(1), {
      detached: true,
      stdio: ["ignore", out, out],
      env: { ...process.env, ...(server.env && typeof server.env === "object" ? server.env : {}) },
    });
    child.on("exit", () => {
      record.exited = true;
    });
    child.on("error", (error) => {
      record.error = error.code === "ENOENT" ? `${server.command[0]} not found (is memtui still installed?)` : String(error.message);
    });
    child.unref();
    if (typeof out === "number") fs.closeSync(out);
  } catch (error) {
    record.error = String(error?.message ?? error);
  }
  return record;
}

// A server that took a call and then neither answered nor could say "pong" is hung (stopped, or
// wedged): end it so a new one can take its lock. Only a process of this user's whose command line is
// memtui's serve on this very socket is ever signalled (its pid is in the lock file beside the socket).
function replaceHung(server, api) {
  try {
    const pid = Number.parseInt(fs.readFileSync(`${server.socket}.lock`, "utf8").trim(), 10);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return false;
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    if (!cmdline.includes("serve") || !cmdline.includes(server.socket)) return false;
    process.kill(pid, "SIGKILL");
    api.logger?.warn?.(`${PLUGIN_ID}: memtui serve (pid ${pid}) stopped answering; started a new one`);
    lastSpawn.delete(server.socket);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const RETRYABLE = new Set(["EAGAIN", "ECONNRESET", "EPIPE", "ECLOSED"]);

// the server's reply to one call, starting the server when nothing listens; throws when it cannot.
// Both calls only read, so one that never got an answer is safe to send again.
async function callMemtui(api, server, request) {
  const config = pluginConfig(api);
  const budgetEnd = Date.now() + CALL_BUDGET_MS;
  const startWait = Math.min(Number(config.startTimeoutMs) || START_TIMEOUT_MS, CALL_BUDGET_MS);
  let startEnd = Date.now() + startWait;
  const callTimeout = Number(config.callTimeoutMs) || CALL_TIMEOUT_MS;
  const payload = { v: PROTOCOL, plugin: PLUGIN_VERSION, ...request };
  let started = null;
  let replaced = false;
  let pause = 20;
  for (;;) {
    checkPrivate(server.socket);
    const left = budgetEnd - Date.now();
    if (left <= 0) throw new Error(`memtui did not answer within ${Math.round(CALL_BUDGET_MS / 1000)}s`);
    try {
      const reply = await exchange(server.socket, payload, Math.min(callTimeout, left));
      if (reply?.busy === true && Date.now() + pause < budgetEnd) { // the server has every thread at work
        await sleep(pause);
        pause = Math.min(pause * 2, 500);
        continue;
      }
      return reply;
    } catch (error) {
      const code = error?.code;
      if (code === "ENOENT" || code === "ECONNREFUSED") { // nothing listens: start one, wait for it
        started ??= startServer(server);
        if (started.error) throw new Error(`cannot start memtui: ${started.error}`);
        if (Date.now() + 100 > startEnd) throw new Error(`memtui did not start within ${Math.round((startEnd - started.at) / 1000)}s`);
        await sleep(100);
        continue;
      }
      if (RETRYABLE.has(code) && !error.answered && Date.now() + pause < budgetEnd) { // a full backlog, an idle exit
        await sleep(pause);
        pause = Math.min(pause * 2, 500);
        continue;
      }
      if (code === "ETIMEDOUT" && !replaced) {
        replaced = true;
        const alive = await exchange(server.socket, { v: PROTOCOL, op: "ping" }, PING_TIMEOUT_MS).then(() => true, () => false);
        if (!alive && replaceHung(server, api)) {
          started = null;
          startEnd = Math.min(budgetEnd, Date.now() + startWait);
          continue; // the socket stays until the new server replaces it: the loop waits for it
        }
      }
      throw error;
    }
  }
}

function unavailableSearch(agentId, error) {
  return {
    results: [],
    disabled: true,
    unavailable: true,
    error,
    warning: `Memory search is unavailable: memtui is not answering (${error}).`,
    action: `Tell the user memory is unavailable. The operator can run \`memtui status --agent ${agentId}\`, ` +
      `refresh the connection with \`memtui connect --agent ${agentId}\`, or give the agent OpenClaw's own ` +
      `memory back with \`memtui disconnect --agent ${agentId}\`.`,
  };
}

function makeTool(api, ctx, name) {
  const agentId = ctx.agentId;
  const isSearch = name === "memory_search";
  return {
    name,
    label: isSearch ? "Memory Search" : "Memory Get",
    description: isSearch ? SEARCH_DESCRIPTION : GET_DESCRIPTION,
    parameters: isSearch ? SEARCH_PARAMETERS : GET_PARAMETERS,
    async execute(_toolCallId, params) {
      const config = liveConfig(api);
      // who asks, for memtui's answer policy: the session (its visibility rules, its own transcript)
      // and whether OpenClaw runs it sandboxed
      const request = {
        op: name,
        agent: agentId,
        args: params ?? {},
        sessionKey: typeof ctx.sessionKey === "string" ? ctx.sessionKey : null,
        sandboxed: ctx.sandboxed === true,
        citations: includeCitations(config, ctx.sessionKey),
      };
      let reply;
      try {
        const server = serverConfig(api);
        if (!server) throw refused("memtui-memory has no server configured; run `memtui connect` again");
        reply = await callMemtui(api, server, request);
      } catch (error) {
        const message = String(error?.message ?? error);
        api.logger?.warn?.(`${PLUGIN_ID}: ${name} for agent ${agentId}: ${message}`);
        if (isSearch) return jsonResult(unavailableSearch(agentId, message));
        return jsonResult({ status: "error", path: params?.path ?? "", text: "", error: message,
          warning: `Memory is unavailable: memtui is not answering (${message}).` });
      }
      if (!reply || reply.ok !== true) throw new Error(String(reply?.error ?? "memtui gave no answer"));
      const result = reply.result ?? {};
      if (isSearch && result.citations === undefined) result.citations = citationsMode(config);
      return jsonResult(result);
    },
  };
}

// Start the server as OpenClaw loads this plugin (a gateway start, an `openclaw agent` run), not at
// the agent's first call: its index opens and its model loads while OpenClaw prepares the turn, so the
// first answer is a complete one. Never blocks, never throws; nothing happens when no agent is
// connected or the server already answers.
function prewarm(api) {
  try {
    const server = serverConfig(api);
    const agents = pluginConfig(api).agents;
    const config = liveConfig(api);
    if (!server || !Array.isArray(agents) || !agents.some((a) => !memoryOff(config, a))) return;
    checkPrivate(server.socket);
    const sock = net.createConnection({ path: server.socket });
    sock.unref();
    sock.on("connect", () => sock.destroy());
    sock.on("error", (error) => {
      if (error?.code === "ENOENT" || error?.code === "ECONNREFUSED") startServer(server);
    });
  } catch {
    // the first call starts it, or says why it cannot
  }
}

export default {
  id: PLUGIN_ID,
  name: "memtui memory",
  description: "memory_search and memory_get answered by memtui, with the ranking tuned and saved in memtui",
  register(api) {
    try {
      for (const name of ["memory_search", "memory_get"]) {
        // null: OpenClaw's own memory plugin answers this agent (or, memory being off, nobody does)
        api.registerTool((ctx) => {
          if (!isConnected(api, ctx?.agentId) || memoryOff(liveConfig(api), ctx.agentId)) return null;
          return makeTool(api, ctx, name);
        }, { names: [name] });
      }
      prewarm(api);
    } catch (error) {
      api.logger?.warn?.(`${PLUGIN_ID}: not registered (${String(error?.message ?? error)}); run memtui connect again`);
    }
  },
};
