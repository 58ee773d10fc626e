/**
 * @module tests/conformance/scenarios/extra-sreport
 * sreport's reports (issue 20) where both sides must print the same bytes: a report window in
 * 2020, before either cluster ran anything (slurmdbd fills its usage tables by hourly rollups,
 * so a workload run during the suite is not in the oracle's reports until the next hour: the
 * figures are checked instead against recorded oracle outputs in
 * tests/unit/sacct-scontrol/sreport-reports.test.ts), with every layout option, and the errors.
 */
import { cap, type Group } from "../scenario.ts";

const W = "start=2020-01-01T00:00:00 end=2020-01-01T01:00:00";

const SREPORT: [string, string][] = [
  ["aubu", `sreport cluster AccountUtilizationByUser ${W}`],
  ["aubu-P-sec", `sreport -P -t sec cluster AccountUtilizationByUser ${W}`],
  ["ubua-hourper", `sreport -t hourper cluster UserUtilizationByAccount ${W}`],
  ["aubu-tres", `sreport --tres=cpu,gres/gpu cluster AccountUtilizationByUser ${W}`],
  ["ubua-p-tres-gpu", `sreport -p --tres=gres/gpu cluster UserUtilizationByAccount ${W}`],
  ["aubu-tree", `sreport cluster AccountUtilizationByUser tree ${W}`],
  ["aubu-format", `sreport cluster AccountUtilizationByUser format=Login,Used%12,bogus ${W}`],
  ["aubu-select", `sreport -t sec cluster AccountUtilizationByUser accounts=nosuch users=nobody ${W}`],
  ["ua-abbrev", `sreport cluster ua ${W}`],
  ["sizes", `sreport job SizesByAccount ${W}`],
  ["sizes-wckey-n", `sreport -n job SizesByAccountAndWckey ${W}`],
  ["sizes-wckey-minper", `sreport job SizesByAccountAndWckey -t minper ${W}`],
  ["sizes-by-wckey", `sreport job SizesByWckey grouping=4,8 ${W}`],
  ["sizes-individual-none", `sreport job sizes grouping=individual printjobcount ${W}`],
  ["sizes-tres-gpu", `sreport --tres=gres/gpu job SizesByAccount ${W}`],
  ["sizes-tres-cpu-percent", `sreport --tres=cpu job SizesByAccount -t percent ${W}`],
  ["sizes-two-tres", `sreport --tres=cpu,mem job SizesByAccount ${W}`],
  ["sizes-bad-condition", `sreport job sizes foo=1 ${W}`],
  ["resv", `sreport reservation utilization ${W}`],
  ["resv-p-minper", `sreport -p -t minper resv u ${W}`],
  // a window before the cluster registered: no line (both count a cluster's time from its registration)
  ["util-before-cluster", `sreport cluster utilization ${W}`],
  ["util-percent-tres", `sreport -P -t percent --tres=cpu,gres/gpu cluster utilization ${W}`],
  // format=: every field of the cluster reports, widths, unknown words (oracle's bytes for these
  // and for a rolled-up hour: tests/unit/sacct-scontrol/sreport-util-oracle.test.ts)
  ["util-format-all", `sreport cluster utilization format=cl,al,d,pl,i,res,rep,o,u,e,tresn,tresc,login,acc,proper,wckey ${W}`],
  ["util-format-widths", `sreport -t hourper cluster utilization format=tresname%20,trescount%3,cl%-12,e%3,u%3,o%3 ${W}`],
  ["util-format-unknown-P", `sreport -P cluster utilization format=cl,bogus,c,p,re,tres,tresc%3 ${W}`],
  ["top-sec", `sreport -t sec user topusage ${W}`],
  ["top-tres-group", `sreport --tres=gres/gpu user topusage ${W} group`],
  ["bad-job-report", "sreport job foo"],
  ["bad-resv-report", "sreport reservation foo"],
  ["invalid-keyword", "sreport r"],
  ["too-few", "sreport job"],
];

export const sreportReports: Group = {
  name: "extra: sreport reports",
  steps: SREPORT.map(([slug, cmd]) => cap(`x-sreport-${slug}`, cmd, { timeoutS: 20 })),
};
