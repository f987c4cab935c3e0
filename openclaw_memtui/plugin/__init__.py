"""The OpenClaw plugin's server (`memtui serve`): the memory tools over a local socket."""
