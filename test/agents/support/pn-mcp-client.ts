import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool's answer, as an agent host sees it. */
export interface ToolAnswer {
  readonly isError: boolean;
  readonly structured: Record<string, unknown> | undefined;
  /** The text content (the same JSON as `structured`, or the error's line). */
  readonly text: string;
}

/** An MCP host's side of `pn mcp` (or any stdio server): the SDK's own client over stdio. */
export class PnMcpClient {
  private constructor(
    readonly client: Client,
    readonly transport: StdioClientTransport,
  ) {}

  /** Starts `command ...args` with `env` (on top of the SDK's default environment) and connects to it. */
  static async connect(command: string, args: string[], options: { env: Record<string, string>; cwd?: string }): Promise<PnMcpClient> {
    const transport = new StdioClientTransport({
      command,
      args,
      env: { ...getDefaultEnvironment(), ...options.env },
      cwd: options.cwd,
      stderr: 'inherit',
    });
    const client = new Client({ name: 'pn-test-host', version: '1.0.0' });
    await client.connect(transport);
    return new PnMcpClient(client, transport);
  }

  /** Calls a tool; `onProgress` asks for progress notifications. */
  async call(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (progress: { progress: number; message?: string }) => void,
  ): Promise<ToolAnswer> {
    const result = (await this.client.callTool(
      { name, arguments: args },
      undefined,
      onProgress ? { onprogress: onProgress, timeout: 400_000 } : { timeout: 400_000 },
    )) as CallToolResult;
    const text = result.content.map((item) => (item.type === 'text' ? item.text : '')).join('');
    return { isError: result.isError === true, structured: result.structuredContent, text };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
