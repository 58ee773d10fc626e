/**
 * @module devices/parse-proc
 * Pure parsers for the two /proc files GPU device nodes need: /proc/devices (char
 * majors of kfd, nvidia-uvm, nvidia-caps, which the kernel assigns dynamically)
 * and /proc/driver/nvidia-caps/mig-minors (device minors of MIG access capabilities).
 */

/** The "Character devices:" section of /proc/devices: name → major. */
export function parseProcDevices(text: string): Map<string, number> {
  const majors = new Map<string, number>();
  let inChar = false;
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "Character devices:") {
      inChar = true;
      continue;
    }
    if (t.endsWith(":")) {
      inChar = false;
      continue;
    }
    const m = /^(\d+)\s+(\S.*)$/.exec(t);
    if (!inChar || m === null) continue;
    // Several names can share a major (4 tty, 4 /dev/vc/0); keep the first per name.
    if (!majors.has(m[2]!)) majors.set(m[2]!, Number(m[1]));
  }
  return majors;
}

/** One MIG capability: "gpu0/gi2/access 21" or "gpu0/gi2/ci0/access 22". */
export interface MigCapMinor {
  gpuMinor: number;
  gpuInstanceId: number;
  /** -1 for the GPU-instance capability itself. */
  computeInstanceId: number;
  deviceMinor: number;
}

export function parseMigMinors(text: string): MigCapMinor[] {
  const caps: MigCapMinor[] = [];
  for (const line of text.split("\n")) {
    const m = /^gpu(\d+)\/gi(\d+)(?:\/ci(\d+))?\/access\s+(\d+)\s*$/.exec(line.trim());
    if (m === null) continue;
    caps.push({
      gpuMinor: Number(m[1]),
      gpuInstanceId: Number(m[2]),
      computeInstanceId: m[3] === undefined ? -1 : Number(m[3]),
      deviceMinor: Number(m[4]),
    });
  }
  return caps;
}

/** Capability minor for a GPU instance (ci = -1) or a compute instance inside it. */
export function migCapMinor(caps: MigCapMinor[], gpuMinor: number, gi: number, ci: number): number | undefined {
  return caps.find((c) => c.gpuMinor === gpuMinor && c.gpuInstanceId === gi && c.computeInstanceId === ci)?.deviceMinor;
}
