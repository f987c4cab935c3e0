// memtui-memory: OpenClaw's memory slot, with memory_search / memory_get answered by memtui.
//
// Shipped inside the openclaw-memtui wheel; `memtui connect --agent ID` copies it (stamped with the
// memtui version) into memtui's data folder, puts that folder in plugins.load.paths, this plugin in
// plugins.slots.memory, and the agent under plugins.entries.memtui-memory.config.agents.
//
// Each call goes to `memtui serve` for that agent over its unix socket: one JSON line out, one back.
// A server that is not running is started (detached, so the next turn finds it warm; it exits when
// idle). Every wait is bounded: a memtui that is missing, down or slow gives the agent a
// "memory unavailable" answer within CALL_BUDGET_MS, never a hang, and loading this file can never
// fail (an error here would fail every agent turn).

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
  "Safe exact excerpt read from MEMORY.md, USER.md, Markdown files under memory/, configured extra paths and " +
  "session transcripts, by a path memory_search returned. Defaults to a bounded excerpt when lines are " +
  "omitted and includes truncation/continuation info (nextFrom) when more content exists. status=ok means " +
  "the excerpt was read; status=not_found means the path is not a memory file; status=error means the read failed.";

const lastSpawn = new Map(); // agent id -> { at, error }

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

function agentConfig(api, agentId) {
  const agents = pluginConfig(api).agents;
  const entry = agents && typeof agents === "object" ? agents[agentId] : undefined;
  return entry && typeof entry.socket === "string" && Array.isArray(entry.command) ? entry : undefined;
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

// one request on one connection; rejects with err.code "ENOENT"/"ECONNREFUSED" when nothing listens
function exchange(socketPath, request, timeoutMs) {
  return new Promise((resolve, reject) => {
    let data = "";
    let settled = false;
    const sock = net.createConnection({ path: socketPath });
    const finish = (error, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => {
      const error = new Error(`memtui did not answer within ${Math.round(timeoutMs / 1000)}s`);
      error.code = "ETIMEDOUT";
      finish(error);
    }, Math.max(1, timeoutMs));
    sock.setEncoding("utf8");
    sock.on("connect", () => sock.write(`${JSON.stringify(request)}\n`));
    sock.on("data", (chunk) => {
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
    sock.on("close", () => finish(new Error("memtui closed the connection without an answer")));
  });
}

function startServer(agentId, entry) {
  const previous = lastSpawn.get(agentId);
  if (previous && Date.now() - previous.at < RESPAWN_AFTER_MS) return previous;
  const record = { at: Date.now(), error: "" };
  lastSpawn.set(agentId, record);
  try {
    let out = "ignore";
    if (typeof entry.log === "string" && entry.log) {
      fs.mkdirSync(path.dirname(entry.log), { recursive: true, mode: 0o700 });
      out = fs.openSync(entry.log, "a", 0o600);
    }
    const child = spawn(entry.command[0], entry.command.slice(1), {
      detached: true,
      stdio: ["ignore", out, out],
      env: { ...process.env, ...(entry.env && typeof entry.env === "object" ? entry.env : {}) },
    });
    child.on("error", (error) => {
      record.error = error.code === "ENOENT" ? `${entry.command[0]} not found (is memtui still installed?)` : String(error.message);
    });
    child.unref();
    if (typeof out === "number") fs.closeSync(out);
  } catch (error) {
    record.error = String(error?.message ?? error);
  }
  return record;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// the server's reply to one call, starting the server when nothing listens; throws when it cannot
async function callMemtui(api, agentId, entry, request) {
  const config = pluginConfig(api);
  const budgetEnd = Date.now() + CALL_BUDGET_MS;
  const startEnd = Date.now() + Math.min(Number(config.startTimeoutMs) || START_TIMEOUT_MS, CALL_BUDGET_MS);
  const callTimeout = Number(config.callTimeoutMs) || CALL_TIMEOUT_MS;
  const payload = { v: PROTOCOL, plugin: PLUGIN_VERSION, ...request };
  let started = null;
  for (;;) {
    try {
      return await exchange(entry.socket, payload, Math.min(callTimeout, budgetEnd - Date.now()));
    } catch (error) {
      const notListening = error?.code === "ENOENT" || error?.code === "ECONNREFUSED";
      if (!notListening) throw error;
      started ??= startServer(agentId, entry);
      if (started.error) throw new Error(`cannot start memtui: ${started.error}`);
      if (Date.now() + 100 > startEnd) throw new Error(`memtui did not start within ${Math.round((startEnd - started.at) / 1000)}s`);
      await sleep(100);
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
      `refresh the connection with \`memtui connect --agent ${agentId}\`, or restore OpenClaw's own memory ` +
      `with \`memtui disconnect --agent ${agentId}\`.`,
  };
}

function makeTool(api, ctx, name, entry) {
  const agentId = ctx.agentId;
  const isSearch = name === "memory_search";
  return {
    name,
    label: isSearch ? "Memory Search" : "Memory Get",
    description: isSearch ? SEARCH_DESCRIPTION : GET_DESCRIPTION,
    parameters: isSearch ? SEARCH_PARAMETERS : GET_PARAMETERS,
    async execute(_toolCallId, params) {
      const config = api.runtime?.config?.current?.() ?? api.config;
      const request = { op: name, agent: agentId, args: params ?? {} };
      if (isSearch) request.citations = includeCitations(config, ctx.sessionKey);
      let reply;
      try {
        reply = await callMemtui(api, agentId, agentConfig(api, agentId) ?? entry, request);
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

// the "Memory Recall" section OpenClaw's memory-core adds (memory-tool-contract.ts), for the same tools
function buildPromptSection({ availableTools, citationsMode: mode }) {
  const hasSearch = availableTools.has("memory_search");
  const hasGet = availableTools.has("memory_get");
  if (!hasSearch && !hasGet) return [];
  const guidance = hasSearch
    ? `Before answering anything about prior work, decisions, dates, people, preferences, or todos: run memory_search${hasGet ? "; for memory-file hits, use memory_get to pull only the needed lines" : ""}. If low confidence after search, say you checked.`
    : "Before answering anything about prior work, decisions, dates, people, preferences, or todos that point to a specific memory file: run memory_get to pull only the needed lines. If low confidence after reading, say you checked.";
  const citations = mode === "off"
    ? "Citations are disabled: do not mention file paths or line numbers in replies unless the user explicitly asks."
    : "Citations: include Source: <path#line> when it helps the user verify memory snippets.";
  return [
    "## Memory Recall",
    guidance,
    "Report partial, unavailable, or stale recall to the user, including returned warning and action guidance.",
    citations,
    "",
  ];
}

export default {
  id: PLUGIN_ID,
  name: "memtui memory",
  description: "memory_search and memory_get answered by memtui, with the ranking tuned and saved in memtui",
  register(api) {
    try {
      api.registerMemoryCapability({
        promptBuilder: (params) => (agentConfig(api, params.agentId) ? buildPromptSection(params) : []),
      });
      for (const name of ["memory_search", "memory_get"]) {
        api.registerTool((ctx) => {
          const entry = agentConfig(api, ctx.agentId);
          return entry ? makeTool(api, ctx, name, entry) : null;
        }, { names: [name] });
      }
    } catch (error) {
      api.logger?.warn?.(`${PLUGIN_ID}: not registered (${String(error?.message ?? error)}); run memtui connect again`);
    }
  },
};
