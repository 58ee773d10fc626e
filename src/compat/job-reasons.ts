/**
 * @module job-reasons
 * Slurm's job state reason strings, indexed by their enum number (current
 * Slurm, from shared/slurm-surface/states.tsv). "-" marks a defunct slot,
 * which Slurm prints as "InvalidReason". Pure data, checked against the facts by its test.
 * Nothing on a command's path imports it (states.ts used to re-export it, which made every
 * squeue/sacct/scontrol/scancel run this table's top-level code: 1.5-3 ms in a compiled binary's
 * cold interpreter); import it directly where a reason number has to be named.
 */

/** Reasons by enum number, whitespace separated; "-" = defunct slot. */
const REASONS_BY_NUMBER_TEXT = `
None Priority Dependency Resources PartitionNodeLimit PartitionTimeLimit PartitionDown
PartitionInactive JobHeldAdmin BeginTime Licenses AssociationJobLimit
AssociationResourceLimit AssociationTimeLimit Reservation ReqNodeNotAvail JobHeldUser
NvidiaImexChannels SchedDefer PartitionDown NodeDown BadConstraints SystemFailure
JobLaunchFailure NonZeroExitCode TimeLimit InactiveLimit InvalidAccount InvalidQOS
QOSUsageThreshold QOSJobLimit QOSResourceLimit QOSTimeLimit RaisedSignal - Cleaning Prolog
QOSNotAllowed AccountNotAllowed DependencyNeverSatisfied QOSGrpCpuLimit
QOSGrpCPUMinutesLimit QOSGrpCPURunMinutesLimit QOSGrpJobsLimit QOSGrpMemLimit
QOSGrpNodeLimit QOSGrpSubmitJobsLimit QOSGrpWallLimit QOSMaxCpuPerJobLimit
QOSMaxCpuMinutesPerJobLimit QOSMaxNodePerJobLimit QOSMaxWallDurationPerJobLimit
QOSMaxCpuPerUserLimit QOSMaxJobsPerUserLimit QOSMaxNodePerUserLimit
QOSMaxSubmitJobPerUserLimit QOSMinCpuNotSatisfied AssocGrpCpuLimit AssocGrpCPUMinutesLimit
AssocGrpCPURunMinutesLimit AssocGrpJobsLimit AssocGrpMemLimit AssocGrpNodeLimit
AssocGrpSubmitJobsLimit AssocGrpWallLimit AssocMaxJobsLimit AssocMaxCpuPerJobLimit
AssocMaxCpuMinutesPerJobLimit AssocMaxNodePerJobLimit AssocMaxWallDurationPerJobLimit
AssocMaxSubmitJobLimit JobHoldMaxRequeue JobArrayTaskLimit BurstBufferResources
BurstBufferStageIn BurstBufferOperation - - AssocGrpUnknown AssocGrpUnknownMinutes
AssocGrpUnknownRunMinutes AssocMaxUnknownPerJob AssocMaxUnknownPerNode
AssocMaxUnknownMinutesPerJob AssocMaxCpuPerNode AssocGrpMemMinutes AssocGrpMemRunMinutes
AssocMaxMemPerJob AssocMaxMemPerNode AssocMaxMemMinutesPerJob AssocGrpNodeMinutes
AssocGrpNodeRunMinutes AssocMaxNodeMinutesPerJob AssocGrpEnergy AssocGrpEnergyMinutes
AssocGrpEnergyRunMinutes AssocMaxEnergyPerJob AssocMaxEnergyPerNode
AssocMaxEnergyMinutesPerJob AssocGrpGRES AssocGrpGRESMinutes AssocGrpGRESRunMinutes
AssocMaxGRESPerJob AssocMaxGRESPerNode AssocMaxGRESMinutesPerJob AssocGrpLicense
AssocGrpLicenseMinutes AssocGrpLicenseRunMinutes AssocMaxLicensePerJob
AssocMaxLicenseMinutesPerJob AssocGrpBB AssocGrpBBMinutes AssocGrpBBRunMinutes
AssocMaxBBPerJob AssocMaxBBPerNode AssocMaxBBMinutesPerJob QOSGrpUnknown
QOSGrpUnknownMinutes QOSGrpUnknownRunMinutes QOSMaxUnknownPerJob QOSMaxUnknownPerNode
QOSMaxUnknownPerUser QOSMaxUnknownMinutesPerJob QOSMinUnknown QOSMaxCpuPerNode
QOSGrpMemoryMinutes QOSGrpMemoryRunMinutes QOSMaxMemoryMinutesPerJob QOSMaxMemoryPerJob
QOSMaxMemoryPerNode QOSMaxMemoryPerUser QOSMinMemory QOSGrpEnergy QOSGrpEnergyMinutes
QOSGrpEnergyRunMinutes QOSMaxEnergyPerJob QOSMaxEnergyPerNode QOSMaxEnergyPerUser
QOSMaxEnergyMinutesPerJob QOSMinEnergy QOSGrpNodeMinutes QOSGrpNodeRunMinutes
QOSMaxNodeMinutesPerJob QOSMinNode QOSGrpGRES QOSGrpGRESMinutes QOSGrpGRESRunMinutes
QOSMaxGRESPerJob QOSMaxGRESPerNode QOSMaxGRESPerUser QOSMaxGRESMinutesPerJob QOSMinGRES
QOSGrpLicense QOSGrpLicenseMinutes QOSGrpLicenseRunMinutes QOSMaxLicensePerJob
QOSMaxLicensePerUser QOSMaxLicenseMinutesPerJob QOSMinLicense QOSGrpBB QOSGrpBBMinutes
QOSGrpBBRunMinutes QOSMaxBBPerJob QOSMaxBBPerNode QOSMaxBBPerUser AssocMaxBBMinutesPerJob
QOSMinBB DeadLine MaxBBPerAccount MaxCpuPerAccount MaxEnergyPerAccount MaxGRESPerAccount
MaxNodePerAccount MaxLicensePerAccount MaxMemoryPerAccount MaxUnknownPerAccount
MaxJobsPerAccount MaxSubmitJobsPerAccount PartitionConfig AccountingPolicy FedJobLock
OutOfMemory MaxMemPerLimit AssocGrpBilling AssocGrpBillingMinutes AssocGrpBillingRunMinutes
AssocMaxBillingPerJob AssocMaxBillingPerNode AssocMaxBillingMinutesPerJob QOSGrpBilling
QOSGrpBillingMinutes QOSGrpBillingRunMinutes QOSMaxBillingPerJob QOSMaxBillingPerNode
QOSMaxBillingPerUser QOSMaxBillingMinutesPerJob MaxBillingPerAccount QOSMinBilling
ReservationDeleted ReservationInvalid Constraints MaxBBRunMinsPerAccount
MaxBillingRunMinsPerAccount MaxCpuRunMinsPerAccount MaxEnergyRunMinsPerAccount
MaxGRESRunMinsPerAccount MaxNodeRunMinsPerAccount MaxLicenseRunMinsPerAccount
MaxMemoryRunMinsPerAccount MaxUnknownRunMinsPerAccount MaxBBRunMinsPerUser
MaxBillingRunMinsPerUser MaxCpuRunMinsPerUser MaxEnergyRunMinsPerUser MaxGRESRunMinsPerUser
MaxNodeRunMinsPerUser MaxLicenseRunMinsPerUser MaxMemoryRunMinsPerUser
MaxUnknownRunMinsPerUser MaxPoweredUpNodes MpiPortsBusy
`;

/** Printed for a defunct or out-of-range reason number. */
export const INVALID_REASON = "InvalidReason";

/** Reason string per enum number (index = number); defunct slots hold InvalidReason. */
export const JOB_REASON_BY_NUMBER: readonly string[] = REASONS_BY_NUMBER_TEXT.trim()
  .split(/\s+/)
  .map((r) => (r === "-" ? INVALID_REASON : r));

/**
 * Every distinct reason name, exactly as Slurm spells it, in enum order
 * (PartitionDown and AssocMaxBBMinutesPerJob appear twice in the enum and
 * once here). Excludes InvalidReason.
 */
export const JOB_REASONS: readonly string[] = [...new Set(JOB_REASON_BY_NUMBER)].filter(
  (r) => r !== INVALID_REASON,
);

const REASON_SET: ReadonlySet<string> = new Set(JOB_REASONS);

/** True when `s` is one of Slurm's reason names (case-sensitive). */
export const isJobReason = (s: string): boolean => REASON_SET.has(s);

/** The reason string Slurm prints for an enum number. */
export const jobReasonName = (n: number): string => JOB_REASON_BY_NUMBER[n] ?? INVALID_REASON;
