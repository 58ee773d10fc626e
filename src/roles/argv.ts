/**
 * @module roles/argv
 * The daemons' and admin tool's own flags (`--name value` or `--name=value`);
 * Slurm's user commands parse theirs through the option tables in src/compat.
 */
export function flag(argv: readonly string[], ...names: string[]): string | undefined {
  for (const name of names) {
    const i = argv.indexOf(name);
    if (i >= 0) return argv[i + 1];
    const eq = argv.find((a) => a.startsWith(`${name}=`));
    if (eq !== undefined) return eq.slice(name.length + 1);
  }
  return undefined;
}
