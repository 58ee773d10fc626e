/**
 * What salloc runs without a command (compat/salloc-default.ts): the interactive step when
 * LaunchParameters has use_interactive_step (Slurm's default InteractiveStepOptions, $SHELL
 * replaced), else the legacy SallocDefaultCommand= through /bin/sh, else the user's shell.
 */
import { describe, expect, it } from "vitest";
import { sallocDefaultCommand, splitWords } from "../../../src/compat/salloc-default.ts";

const none = { launchParameters: undefined, interactiveStepOptions: undefined, sallocDefaultCommand: undefined, shell: "/bin/zsh" };

describe("salloc's default command", () => {
  it("the shell, SallocDefaultCommand, then the interactive step, which wins", () => {
    expect(sallocDefaultCommand(none)).toEqual({ srun: false, argv: ["/bin/zsh"] });
    expect(sallocDefaultCommand({ ...none, sallocDefaultCommand: "xterm -e bash" })).toEqual({ srun: false, argv: ["/bin/sh", "-c", "xterm -e bash"] });
    const step = sallocDefaultCommand({ ...none, sallocDefaultCommand: "xterm", launchParameters: "enable_nss_slurm, use_interactive_step" });
    expect(step).toEqual({ srun: true, argv: ["--interactive", "--preserve-env", "--pty", "/bin/zsh"] });
    expect(sallocDefaultCommand({ ...none, launchParameters: "use_interactive_step", interactiveStepOptions: "-n1 --pty --mpi=none ${SHELL} -l" }))
      .toEqual({ srun: true, argv: ["-n1", "--pty", "--mpi=none", "/bin/zsh", "-l"] });
  });

  it("splits option strings on blanks, quotes grouping", () => {
    expect(splitWords(`a  "b c" 'd' ""`)).toEqual(["a", "b c", "d", ""]);
  });
});
