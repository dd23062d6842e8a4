// Types of sbx_exec_client.mjs (docs/exec-protocol.md, docs/exec-api.md).
export interface ExecRequest {
  version?: 1;
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: { text: string } | { base64: string };
  timeout?: number;
  profile?: string;
  policy?: string;
  tier?: string;
  lane?: string;
  backend?: string;
  output_limit?: number;
  run_id?: string;
}
/** sbx exec's result object; its streams' data is "" (they were streamed). */
export type ExecResult = Record<string, unknown> & {
  outcome: string;
  exit_code: number | null;
  sbx_exit: number;
};
export interface ApprovalRequest {
  id: number;
  approval: number;
  operation: string;
  command: string[];
  path: string | null;
  address: string | null;
  profile: string;
  rule: string;
  layer: string;
  targets?: string[];
  workspace?: string;
  cwd?: string;
  run_id?: string;
}
export interface ApprovalReply {
  decision: 'allow' | 'deny';
  scope?: 'once' | 'session' | 'always';
  reason?: string;
}
export type Approver = (req: ApprovalRequest) => ApprovalReply | Promise<ApprovalReply>;
export type Stream = 'stdout' | 'stderr';

export class RpcError extends Error {
  code: number;
  data?: unknown;
}
export class Process {
  readonly id: number;
  exited: { id: number; result: ExecResult | null; status: number; signal?: string } | null;
  write(data: Uint8Array | string): Promise<number>;
  closeStdin(): Promise<void>;
  terminate(): Promise<void>;
  wait(): Promise<ExecResult | null>;
  output(stream: Stream): Buffer;
}
export class Client {
  static connect(argv: string[], approver?: Approver): Promise<Client>;
  serverInfo: { protocolVersion: number; execVersion: number; capabilities: Record<string, unknown> };
  call(method: string, params?: unknown): Promise<any>;
  start(request: ExecRequest, onOutput?: (stream: Stream, data: Buffer) => void): Promise<Process>;
  close(): Promise<number>;
}
