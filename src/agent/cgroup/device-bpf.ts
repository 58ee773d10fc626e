/**
 * @module agent/cgroup/device-bpf
 * Device isolation on cgroup v2: v2 has no devices controller, so (like
 * systemd and Slurm) Spur attaches a BPF_PROG_TYPE_CGROUP_DEVICE program to
 * the job's cgroup that refuses the listed devices (the node's GPUs the job was
 * not given) and allows everything else. The program is assembled here (pure:
 * `deviceFilterProgram`), loaded and attached with the bpf(2) system call
 * through bun:ffi (`attachDeviceFilter`). An attached program stays with the
 * cgroup until it is removed; descendants (the job's steps) inherit it.
 * Failure policy: any error is returned as text and the caller reports that
 * GPUs are not isolated; nothing is retried.
 */
import type { DeviceRule } from "./plan.ts";

const BPF_PROG_LOAD = 5;
const BPF_PROG_ATTACH = 8;
const BPF_PROG_TYPE_CGROUP_DEVICE = 15;
const BPF_CGROUP_DEVICE = 6;
const SYS_BPF_X86_64 = 321;
const SYS_BPF_AARCH64 = 280;

/** One eBPF instruction: opcode, dst and src registers, offset, immediate (8 bytes, little endian). */
function insn(code: number, dst: number, src: number, off: number, imm: number): number[] {
  const b = new DataView(new ArrayBuffer(8));
  b.setUint8(0, code);
  b.setUint8(1, (src << 4) | dst);
  b.setInt16(2, off, true);
  b.setInt32(4, imm, true);
  return [...new Uint8Array(b.buffer)];
}

const LDX_W = 0x61; // r_dst = *(u32 *)(r_src + off)
const AND64_K = 0x57;
const JNE_K = 0x55;
const MOV64_K = 0xb7;
const EXIT = 0x95;

/**
 * The program: ctx is struct bpf_cgroup_dev_ctx { u32 access_type; u32 major; u32 minor; },
 * access_type's low 16 bits are the device type (1 block, 2 char). Each denied device is 5
 * instructions ("if type, major and minor all match: return 0"); the end returns 1 (allow).
 */
export function deviceFilterProgram(deny: readonly DeviceRule[]): Uint8Array {
  const out: number[] = [
    ...insn(LDX_W, 2, 1, 0, 0), ...insn(AND64_K, 2, 0, 0, 0xffff), ...insn(LDX_W, 3, 1, 4, 0), ...insn(LDX_W, 4, 1, 8, 0),
  ];
  for (const d of deny) {
    const type = d.kind === "c" ? 2 : 1;
    out.push(...insn(JNE_K, 2, 0, 4, type), ...insn(JNE_K, 3, 0, 3, d.major), ...insn(JNE_K, 4, 0, 2, d.minor));
    out.push(...insn(MOV64_K, 0, 0, 0, 0), ...insn(EXIT, 0, 0, 0, 0));
  }
  out.push(...insn(MOV64_K, 0, 0, 0, 1), ...insn(EXIT, 0, 0, 0, 0));
  return new Uint8Array(out);
}

interface Libc {
  syscall(nr: number, cmd: number, attr: Uint8Array, size: number): number | bigint;
  open(path: Uint8Array, flags: number): number;
  close(fd: number): number;
  errno(): number;
}

async function loadLibc(): Promise<Libc> {
  const { dlopen, FFIType, ptr } = await import("bun:ffi");
  const lib = dlopen("libc.so.6", {
    syscall: { args: [FFIType.i64, FFIType.i64, FFIType.ptr, FFIType.i64], returns: FFIType.i64 },
    open: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
  const { read } = await import("bun:ffi");
  return {
    syscall: (nr, cmd, attr, size) => lib.symbols.syscall(nr, cmd, ptr(attr), size),
    open: (path, flags) => lib.symbols.open(ptr(path), flags),
    close: (fd) => lib.symbols.close(fd),
    errno: () => {
      const p = lib.symbols.__errno_location();
      return p === null ? 0 : read.i32(p, 0);
    },
  };
}

const O_RDONLY_DIRECTORY = 0o200000;

/** Load the filter and attach it to the cgroup v2 directory `dir`. Returns "" or why it failed. */
export async function attachDeviceFilter(dir: string, deny: readonly DeviceRule[]): Promise<string> {
  if (deny.length === 0) return "";
  const nr = process.arch === "x64" ? SYS_BPF_X86_64 : process.arch === "arm64" ? SYS_BPF_AARCH64 : 0;
  if (nr === 0) return `bpf device filter: unsupported architecture ${process.arch}`;
  let libc: Libc;
  try {
    libc = await loadLibc();
  } catch (error) {
    return `bpf device filter: ${String(error)}`;
  }
  const program = deviceFilterProgram(deny);
  const license = new TextEncoder().encode("GPL\0");
  const { ptr } = await import("bun:ffi");
  const load = new Uint8Array(128);
  const lv = new DataView(load.buffer);
  lv.setUint32(0, BPF_PROG_TYPE_CGROUP_DEVICE, true);
  lv.setUint32(4, program.length / 8, true);
  lv.setBigUint64(8, BigInt(ptr(program)), true);
  lv.setBigUint64(16, BigInt(ptr(license)), true);
  const progFd = Number(libc.syscall(nr, BPF_PROG_LOAD, load, load.length));
  if (progFd < 0) return `bpf device filter: BPF_PROG_LOAD failed (errno ${libc.errno()})`;
  const cgFd = libc.open(new TextEncoder().encode(`${dir}\0`), O_RDONLY_DIRECTORY);
  if (cgFd < 0) {
    libc.close(progFd);
    return `bpf device filter: cannot open ${dir} (errno ${libc.errno()})`;
  }
  const attach = new Uint8Array(128);
  const av = new DataView(attach.buffer);
  av.setUint32(0, cgFd, true); // target_fd
  av.setUint32(4, progFd, true); // attach_bpf_fd
  av.setUint32(8, BPF_CGROUP_DEVICE, true); // attach_type
  av.setUint32(12, 0, true); // attach_flags: descendants inherit, cannot override
  const rc = Number(libc.syscall(nr, BPF_PROG_ATTACH, attach, attach.length));
  const errno = libc.errno();
  libc.close(cgFd);
  libc.close(progFd);
  return rc < 0 ? `bpf device filter: BPF_PROG_ATTACH to ${dir} failed (errno ${errno})` : "";
}
