/**
 * @module roles/cli/task-output
 * srun's side of `-o/-e`: each task's stdout/stderr chunks go to the target
 * compat/srun-io chose for it (this terminal, with `-l` labels; nowhere; or a
 * file, opened once per path, truncated unless --open-mode=append, shared by
 * the tasks whose pattern expands to the same name). The files are written
 * here, in srun's working directory, as the user who runs srun.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { StreamTarget } from "../../compat/srun-io.ts";

export class LineLabeler {
  private partial = new Map<number, string>();
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly width: number,
  ) {}
  write(task: number, chunk: string): void {
    const text = (this.partial.get(task) ?? "") + chunk;
    const lines = text.split("\n");
    this.partial.set(task, lines.pop() ?? "");
    for (const line of lines) this.out.write(`${String(task).padStart(this.width)}: ${line}\n`);
  }
  flush(task: number): void {
    const rest = this.partial.get(task);
    if (rest) this.out.write(`${String(task).padStart(this.width)}: ${rest}\n`);
    this.partial.delete(task);
  }
}

export class TaskOutput {
  private readonly fds = new Map<string, number>();
  private readonly decoder = new TextDecoder();
  private readonly outLabel: LineLabeler;
  private readonly errLabel: LineLabeler;
  constructor(
    private readonly targets: ReadonlyMap<number, { out: StreamTarget; err: StreamTarget }>,
    private readonly label: boolean,
    private readonly append: boolean,
    width: number,
  ) {
    this.outLabel = new LineLabeler(process.stdout, width);
    this.errLabel = new LineLabeler(process.stderr, width);
    // every file is opened (and so created or truncated) before any task runs, as Slurm's stepd does
    for (const t of targets.values()) for (const target of [t.out, t.err]) if (target.kind === "file") this.fdOf(target.path);
  }

  write(taskId: number, stream: "out" | "err", bytes: Uint8Array): void {
    const target = this.targets.get(taskId)?.[stream] ?? { kind: "terminal" };
    if (target.kind === "discard") return;
    if (target.kind === "file") {
      writeSync(this.fdOf(target.path), bytes);
      return;
    }
    const terminal = stream === "out" ? process.stdout : process.stderr;
    if (this.label) (stream === "out" ? this.outLabel : this.errLabel).write(taskId, this.decoder.decode(bytes));
    else terminal.write(bytes);
  }

  /** The task's output has ended: a labelled partial line is printed now. */
  ended(taskId: number): void {
    this.outLabel.flush(taskId);
    this.errLabel.flush(taskId);
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  private fdOf(path: string): number {
    let fd = this.fds.get(path);
    if (fd === undefined) {
      fd = openSync(path, this.append ? "a" : "w", 0o644);
      this.fds.set(path, fd);
    }
    return fd;
  }
}
