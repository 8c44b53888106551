// What the index must serve after the reference stream (fixtures/quarkus-flow-events.jsonl) went through the
// whole pipeline: 8 instances and 22 task executions with these identities, statuses and times. Payloads and
// errors are not copied here; they are taken from the events as printed (see index-assertions.ts).

const DAY = '2026-05-12T';

export interface ExpectedInstance {
  readonly id: string;
  readonly namespace: string;
  readonly name: string;
  readonly version: string;
  readonly status: 'COMPLETED' | 'FAULTED' | 'CANCELLED';
  readonly startDate: string;
  /** Also the lastUpdate of every one of these instances. */
  readonly endDate: string;
}

export interface ExpectedTask {
  readonly id: string;
  readonly instanceId: string;
  readonly taskPosition: string;
  readonly taskName: string;
  readonly status: 'COMPLETED' | 'FAULTED' | 'CANCELLED';
  readonly startDate: string;
  readonly endDate: string;
}

const instance = (id: string, namespace: string, name: string, version: string, status: ExpectedInstance['status'], start: string, end: string): ExpectedInstance =>
  ({ id, namespace, name, version, status, startDate: `${DAY}${start}Z`, endDate: `${DAY}${end}Z` });

export const EXPECTED_INSTANCES: readonly ExpectedInstance[] = [
  instance('01KRDQDZBR7492YQWM736PEENJ', 'com.acme.orders', 'order-intake', '1.0.0', 'COMPLETED', '09:14:03.512378', '09:14:03.515950'),
  instance('01KRDQDZBS8TBDWA72Q1575QHY', 'com.acme.billing', 'payment-capture', '2.1.0', 'FAULTED', '09:14:03.513248', '09:14:08.519678'),
  instance('01KRDQE6KHQGTG2RA2Q0X3ED0J', 'com.acme.orders', 'order-intake', '1.0.0', 'CANCELLED', '09:14:10.929777', '09:14:11.021757'),
  instance('01KRDQE6KKA9476X0RVHQ1S7AE', 'com.acme.orders', 'customer-notify', '1.0.0', 'COMPLETED', '09:14:10.931969', '09:14:11.228517'),
  instance('01KRDQEAPWDTERF1SDDX5A5SQV', 'com.acme.orders', 'order-fulfilment', '1.3.0', 'COMPLETED', '09:14:15.132682', '09:14:15.155854'),
  instance('01KRDQEBYPFN9AZM0BE5K9B295', 'com.acme.billing', 'ledger-sync', '3.0.0-rc.1', 'COMPLETED', '09:14:16.406220', '09:14:18.487834'),
  instance('01KRDQEES4VBNTZWX89D86KWZJ', 'com.acme.orders', 'address-normalizer', '0.9.1', 'FAULTED', '09:14:19.300321', '09:14:19.302802'),
  instance('01KRDQEHBQF7VKFR571KEFRHM5', 'com.acme.orders', 'manual-review', '1.2.0', 'COMPLETED', '09:14:21.943757', '09:15:09.454091'),
];

const task = (id: string, taskName: string, status: ExpectedTask['status'], start: string, end: string): ExpectedTask => {
  const [instanceId, rest] = id.split(/:(.*)/s) as [string, string];
  return { id, instanceId, taskPosition: rest.replace(/@\d+$/, ''), taskName, status, startDate: `${DAY}${start}Z`, endDate: `${DAY}${end}Z` };
};

export const EXPECTED_TASKS: readonly ExpectedTask[] = [
  task('01KRDQDZBR7492YQWM736PEENJ:do/0/validateOrder', 'validateOrder', 'COMPLETED', '09:14:03.512566', '09:14:03.512663'),
  task('01KRDQDZBR7492YQWM736PEENJ:do/1/reserveStock', 'reserveStock', 'COMPLETED', '09:14:03.512698', '09:14:03.515233'),
  task('01KRDQDZBS8TBDWA72Q1575QHY:do/0/loadInvoice', 'loadInvoice', 'COMPLETED', '09:14:03.513399', '09:14:03.515700'),
  task('01KRDQDZBS8TBDWA72Q1575QHY:do/1/chargeCard', 'chargeCard', 'FAULTED', '09:14:03.516046', '09:14:08.519458'),
  task('01KRDQE6KHQGTG2RA2Q0X3ED0J:do/0/validateOrder', 'validateOrder', 'COMPLETED', '09:14:10.929980', '09:14:10.931141'),
  task('01KRDQE6KHQGTG2RA2Q0X3ED0J:do/1/reserveStock', 'reserveStock', 'CANCELLED', '09:14:10.931199', '09:14:11.022169'),
  task('01KRDQE6KKA9476X0RVHQ1S7AE:do/0/notifyAll/branch', 'notifyAll', 'COMPLETED', '09:14:10.932091', '09:14:11.227936'),
  task('01KRDQE6KKA9476X0RVHQ1S7AE:do/0/notifyAll/branch/0/emailCustomer', 'emailCustomer', 'COMPLETED', '09:14:10.933518', '09:14:11.227679'),
  task('01KRDQE6KKA9476X0RVHQ1S7AE:do/0/notifyAll/branch/1/smsCustomer', 'smsCustomer', 'COMPLETED', '09:14:10.933501', '09:14:11.083699'),
  task('01KRDQE6KKA9476X0RVHQ1S7AE:do/1/markNotified', 'markNotified', 'COMPLETED', '09:14:11.228000', '09:14:11.228402'),
  task('01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do', 'pickItems', 'COMPLETED', '09:14:15.132858', '09:14:15.155749'),
  task('01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem', 'pickItem', 'COMPLETED', '09:14:15.132949', '09:14:15.133182'),
  task('01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem@1778577255133240', 'pickItem', 'COMPLETED', '09:14:15.133240', '09:14:15.146110'),
  task('01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem@1778577255146168', 'pickItem', 'COMPLETED', '09:14:15.146168', '09:14:15.155609'),
  task('01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try', 'syncLedger', 'COMPLETED', '09:14:16.406360', '09:14:18.487737'),
  task('01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries', 'postEntries', 'FAULTED', '09:14:16.406437', '09:14:16.445052'),
  task('01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries@1778577258446396', 'postEntries', 'COMPLETED', '09:14:18.446396', '09:14:18.487604'),
  task('01KRDQEES4VBNTZWX89D86KWZJ:do/0/normalizeAddress', 'normalizeAddress', 'FAULTED', '09:14:19.300484', '09:14:19.302601'),
  task('01KRDQEHBQF7VKFR571KEFRHM5:do/0/scoreRisk', 'scoreRisk', 'COMPLETED', '09:14:21.943915', '09:14:21.951370'),
  task('01KRDQEHBQF7VKFR571KEFRHM5:do/1/notifyReviewer', 'notifyReviewer', 'COMPLETED', '09:14:21.951431', '09:14:22.066875'),
  task('01KRDQEHBQF7VKFR571KEFRHM5:do/2/recordDecision', 'recordDecision', 'COMPLETED', '09:15:09.384881', '09:15:09.449973'),
  task('01KRDQEHBQF7VKFR571KEFRHM5:do/3/publishResult', 'publishResult', 'COMPLETED', '09:15:09.450101', '09:15:09.453978'),
];

/** Raw rows the reference stream gives when every event is written once. */
export const EXPECTED_RAW_ROWS = { workflow: 36, task: 44 } as const;
