/** The usage of `hitl-relay mcp` (apart, so the CLI loads the MCP SDK only to run it). */

export const MCP_USAGE = `usage: hitl-relay mcp [--relay <url>] [--target <platform:address>] [--gateway <name>]

  Speaks MCP on stdin/stdout and forwards to the relay's /mcp (Streamable HTTP), for MCP clients
  that spawn a process. The relay is --relay, else $RELAY_URL, else http://127.0.0.1:$PORT or :8787;
  RELAY_API_KEY from the environment. --target is the default target of the tools.
  --gateway <name> forwards to the MCP gateway's upstream <name> (/mcp/gateway/<name>) instead.`;
