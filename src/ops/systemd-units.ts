/**
 * @module ops/systemd-units
 * `spur systemd-units`: the unit files for spurctld, spurd and spurrestd. spurd uses
 * KillMode=process so that stopping or restarting the agent signals only the agent: the
 * job step processes it started keep running through an agent upgrade or restart.
 * Pure text; `systemdUnitsMain` writes them into a directory when asked to.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OpsResult } from "./check-cli.ts";

export interface UnitOptions {
  /** Where the role links are (install.sh --prefix); default /usr/local/bin. */
  binDir?: string;
  /** default /etc/spur/spur.conf. */
  confPath?: string;
}

export interface UnitFile {
  name: string;
  text: string;
}

const unit = (lines: readonly string[]): string => `${lines.join("\n")}\n`;

function common(role: string, what: string, o: Required<UnitOptions>): { head: string[]; exec: string } {
  return {
    head: [
      "# Written by `spur systemd-units`.",
      "[Unit]",
      `Description=Spur ${what} (${role})`,
      "After=network-online.target",
      "Wants=network-online.target",
      `ConditionPathExists=${o.confPath}`,
      "",
      "[Service]",
      "Type=simple",
    ],
    exec: `ExecStart=${o.binDir}/${role} --conf ${o.confPath}`,
  };
}

const INSTALL = ["", "[Install]", "WantedBy=multi-user.target"];

/** The three unit files, in the order they should be enabled. */
export function systemdUnits(opts: UnitOptions = {}): UnitFile[] {
  const o: Required<UnitOptions> = { binDir: opts.binDir ?? "/usr/local/bin", confPath: opts.confPath ?? "/etc/spur/spur.conf" };
  const ctld = common("spurctld", "controller", o);
  const d = common("spurd", "node agent", o);
  const rest = common("spurrestd", "REST API", o);
  return [
    { name: "spurctld.service", text: unit([...ctld.head, ctld.exec, "Restart=on-failure", "RestartSec=2",
      "TimeoutStopSec=30", "LimitNOFILE=1048576", ...INSTALL]) },
    { name: "spurd.service", text: unit([...d.head, d.exec, "Restart=on-failure", "RestartSec=2",
      "# Stop/restart signals only the agent itself: the job steps it started keep running.",
      "KillMode=process", "Delegate=yes", "TasksMax=infinity", "LimitNOFILE=131072", "LimitMEMLOCK=infinity",
      "LimitSTACK=infinity", ...INSTALL]) },
    { name: "spurrestd.service", text: unit([...rest.head.map((l) => (l.startsWith("After=") ? `${l} spurctld.service` : l)),
      rest.exec, "Restart=on-failure", "RestartSec=2", "LimitNOFILE=65536", "NoNewPrivileges=yes", ...INSTALL]) },
  ];
}

export interface SystemdUnitsFlags extends UnitOptions {
  /** Write the units here (e.g. /etc/systemd/system) instead of printing them. */
  dir?: string | undefined;
  /** Replace units there that differ. */
  force?: boolean | undefined;
}

/** Print the units (separated by their names), or write them into `dir` (flags: roles/admin/systemd-units.ts). */
export function systemdUnitsMain(flags: SystemdUnitsFlags): OpsResult {
  const units = systemdUnits({ binDir: flags.binDir, confPath: flags.confPath });
  const dir = flags.dir;
  if (dir === undefined) return { stdout: units.map((u) => `### ${u.name}\n${u.text}`).join("\n"), stderr: "", exitCode: 0 };
  mkdirSync(dir, { recursive: true });
  const done: string[] = [];
  for (const u of units) {
    const path = join(dir, u.name);
    const same = existsSync(path) && readFileSync(path, "utf8") === u.text;
    if (existsSync(path) && !same && flags.force !== true) {
      return { stdout: done.join(""), stderr: `spur: error: systemd-units: ${path} exists and differs (use --force)\n`, exitCode: 1 };
    }
    if (!same) writeFileSync(path, u.text, { mode: 0o644 });
    done.push(`${same ? "unchanged" : "wrote"} ${path}\n`);
  }
  return { stdout: `${done.join("")}then: systemctl daemon-reload && systemctl enable --now spurctld spurd\n`, stderr: "", exitCode: 0 };
}
