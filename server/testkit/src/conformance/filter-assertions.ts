// Every filter operator of every field type, the aliases, the shorthand, and/or/not with two-valued logic.
// Each case lists exactly the ids it must return (the query orders by id, the lists here are sorted the same way).
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES, ALL_TASKS, FIXTURE_TASKS, ID, PAGING_IDS, PAGING_TASKS } from './expected-data.js';
import { compareCodePoints } from './expected-order.js';
import { instanceIdsForLiteral, instanceIdsForVariable, taskIdsForLiteral, taskIdsForVariable } from './served.js';

const byId = (list: readonly string[]): string[] => [...list].sort(compareCodePoints);

const ALL = ALL_INSTANCES.map((i) => i.id);
const allExcept = (...excluded: string[]): string[] => ALL.filter((id) => !excluded.includes(id));
const FIXTURES = [ID.orderIntake, ID.paymentCapture, ID.orderCancelled, ID.customerNotify, ID.orderFulfilment, ID.ledgerSync, ID.addressNormalizer, ID.manualReview];
const NOT_PAGING = ALL.filter((id) => !PAGING_IDS.includes(id));
const COMPLETED = [ID.orderIntake, ID.customerNotify, ID.orderFulfilment, ID.ledgerSync, ID.manualReview, ID.lateRunning, ID.jsonNumbers, ID.jsonArrayRoot, ID.noNamespace, ID.timeForms];
const CONFORMANCE_NAMESPACE = [ID.waiting, ID.lateRunning, ID.suspended, ID.jsonNumbers, ID.jsonArrayRoot, ID.timeForms, ID.faulted404];
const WITH_END_DATE = [...FIXTURES, ID.lateRunning, ID.timeForms, ID.jsonNumbers, ID.jsonArrayRoot, ID.noNamespace, ID.faulted404, ID.fullwidth];

type Case = readonly [filter: string, expected: readonly string[]];
type VariableCase = readonly [title: string, filter: unknown, expected: readonly string[]];

export const INSTANCE_STRING_CASES: readonly Case[] = [
  ['{name: {eq: "order-intake"}}', [ID.orderIntake, ID.orderCancelled]],
  ['{name: {eq: "zeta"}}', [ID.noNamespace]],
  ['{name: {eq: "Zeta"}}', [ID.waiting]],
  ['{name: {eq: "ZETA"}}', []],
  ['{name: {eq: "Ärger"}}', [ID.suspended]],
  ['{name: {eq: "ｆｕｌｌｗｉｄｔｈ"}}', [ID.fullwidth]],
  ['{name: {eq: "fullwidth"}}', []],
  ['{id: {eq: "01KRDQEES4VBNTZWX89D86KWZJ"}}', [ID.addressNormalizer]],
  ['{version: {eq: "3.0.0-rc.1"}}', [ID.ledgerSync]],
  ['{namespace: {eq: "com.acme.conformance"}}', CONFORMANCE_NAMESPACE],
  ['{namespace: {eq: "com.acme.Conformance"}}', [ID.fullwidth]],
  ['{name: {ne: "paging"}}', NOT_PAGING],
  // ne never matches a missing value: the instance without a namespace is not returned
  ['{namespace: {ne: "conformance.paging"}}', NOT_PAGING.filter((id) => id !== ID.noNamespace)],
  ['{version: {ne: "1.0.0"}}', [ID.paymentCapture, ID.orderFulfilment, ID.ledgerSync, ID.addressNormalizer, ID.manualReview, ID.lateRunning, ID.suspended, ID.jsonArrayRoot, ID.timeForms, ID.faulted404, ID.fullwidth]],
  ['{name: {like: "order-*"}}', [ID.orderIntake, ID.orderCancelled, ID.orderFulfilment]],
  ['{name: {like: "?eta"}}', [ID.waiting, ID.noNamespace]],
  ['{name: {like: "Z*"}}', [ID.waiting]],
  // % and _ are literal in like: a naive SQL LIKE would also match rateX100Y
  ['{name: {like: "rate_100%"}}', [ID.jsonNumbers]],
  ['{name: {like: "rate_*"}}', [ID.jsonNumbers]],
  ['{name: {like: "rate%"}}', []],
  ['{name: {like: "rate?100*"}}', [ID.jsonNumbers, ID.jsonArrayRoot]],
  ['{name: {like: "order"}}', []],
  ['{name: {like: "*"}}', ALL],
  // ? is one character, also beyond the Basic Multilingual Plane
  ['{name: {like: "?rger"}}', [ID.suspended]],
  ['{name: {like: "?launch"}}', [ID.timeForms]],
  ['{version: {like: "2.0*beta?"}}', [ID.faulted404]],
  ['{id: {like: "01KRDQE?K*"}}', [ID.orderCancelled, ID.customerNotify]],
  ['{name: {in: ["order-intake", "ledger-sync", "no-such-name"]}}', [ID.orderIntake, ID.orderCancelled, ID.ledgerSync]],
  ['{name: {in: []}}', []],
  ['{namespace: {in: ["com.acme.billing", "com.acme.Conformance"]}}', [ID.paymentCapture, ID.ledgerSync, ID.fullwidth]],
  ['{name: {contains: "eta"}}', [ID.waiting, ID.noNamespace]],
  ['{name: {contains: "ETA"}}', []],
  ['{name: {contains: "%"}}', [ID.jsonNumbers]],
  ['{name: {contains: "_"}}', [ID.jsonNumbers]],
  ['{name: {contains: "-"}}', FIXTURES],
  ['{version: {contains: "*"}}', [ID.faulted404]],
  ['{version: {contains: "?"}}', [ID.faulted404]],
  ['{name: {startsWith: "order-"}}', [ID.orderIntake, ID.orderCancelled, ID.orderFulfilment]],
  ['{name: {startsWith: "rate_"}}', [ID.jsonNumbers]],
  ['{name: {startsWith: "🚀"}}', [ID.timeForms]],
  ['{namespace: {startsWith: "com.acme.C"}}', [ID.fullwidth]],
  ['{id: {startsWith: "01KRDQE6"}}', [ID.orderCancelled, ID.customerNotify]],
  ['{name: {endsWith: "%"}}', [ID.jsonNumbers]],
  ['{name: {endsWith: "-capture"}}', [ID.paymentCapture]],
  ['{version: {endsWith: "-rc.1"}}', [ID.ledgerSync]],
  ['{version: {endsWith: "?"}}', [ID.faulted404]],
  ['{namespace: {isNull: true}}', [ID.noNamespace]],
  ['{version: {isNull: true}}', [ID.noNamespace]],
  ['{namespace: {isNull: false}}', allExcept(ID.noNamespace)],
  ['{name: {isNull: true}}', []],
  // all operators of one field AND together
  ['{name: {startsWith: "order", endsWith: "intake"}}', [ID.orderIntake, ID.orderCancelled]],
  ['{name: {startsWith: "order", ne: "order-intake"}}', [ID.orderFulfilment]],
  ['{namespace: {isNull: false, ne: "conformance.paging"}}', NOT_PAGING.filter((id) => id !== ID.noNamespace)],
  // all fields AND together
  ['{namespace: {eq: "com.acme.orders"}, version: {eq: "1.0.0"}}', [ID.orderIntake, ID.orderCancelled, ID.customerNotify]],
  // placeholders never match, even by id
  ['{id: {in: ["conformance-placeholder-status", "conformance-placeholder-orphan", "01KRDQDZBR7492YQWM736PEENJ"]}}', [ID.orderIntake]],
];

const INSTANCE_STRING_VARIABLE_CASES: readonly VariableCase[] = [
  ['like with a literal backslash', { name: { like: 'back\\slash' } }, [ID.faulted404]],
  ['like with a backslash before *', { name: { like: 'back\\*' } }, [ID.faulted404]],
  ['like ending in a backslash and *', { name: { like: '*\\*' } }, [ID.faulted404]],
  ['contains a backslash', { name: { contains: '\\' } }, [ID.faulted404]],
  ['eq with a backslash', { name: { eq: 'back\\slash' } }, [ID.faulted404]],
  ['endsWith %', { name: { endsWith: '%' } }, [ID.jsonNumbers]],
];

const STATUS_CASES: readonly Case[] = [
  ['{status: {eq: COMPLETED}}', COMPLETED],
  // a null item of an in list (the Java schema's [WorkflowInstanceStatus]) equals no status: it is skipped
  ['{status: {in: [COMPLETED, null]}}', COMPLETED],
  ['{status: {in: [null]}}', []],
  ['{not: {status: {in: [null]}}}', ALL],
  ['{status: {ne: COMPLETED}}', allExcept(...COMPLETED)],
  ['{status: {eq: FAULTED}}', [ID.paymentCapture, ID.addressNormalizer, ID.faulted404]],
  ['{status: {eq: CANCELLED}}', [ID.orderCancelled, ID.fullwidth]],
  ['{status: {eq: SUSPENDED}}', [ID.suspended]],
  ['{status: {eq: RUNNING}}', [ID.waiting, ...PAGING_IDS]],
  ['{status: {in: [FAULTED, CANCELLED]}}', [ID.paymentCapture, ID.addressNormalizer, ID.faulted404, ID.orderCancelled, ID.fullwidth]],
  ['{status: {in: []}}', []],
  ['{status: {in: [COMPLETED, SUSPENDED], ne: COMPLETED}}', [ID.suspended]],
];

const TIME_CASES: readonly Case[] = [
  ['{startDate: {eq: "2026-05-12T09:14:03.512378Z"}}', [ID.orderIntake]],
  ['{startDate: {eq: "2026-05-12T11:14:03.512378+02:00"}}', [ID.orderIntake]],
  ['{startDate: {eq: "2026-05-12T09:14:03.512Z"}}', []],
  ['{startTime: {eq: "2026-05-13T10:00:00.000001Z"}}', [ID.timeForms]],
  ['{startDate: {ne: "2026-05-12T09:14:03.512378Z"}}', allExcept(ID.orderIntake)],
  ['{endDate: {ne: "2026-05-12T09:14:03.51595Z"}}', WITH_END_DATE.filter((id) => id !== ID.orderIntake)],
  ['{startDate: {gt: "2026-05-13T10:00:00.000001Z"}}', [ID.suspended, ID.jsonNumbers, ID.jsonArrayRoot, ID.noNamespace, ID.faulted404, ID.fullwidth, ...PAGING_IDS]],
  ['{startDate: {gte: "2026-05-13T10:00:00.000001Z"}}', [ID.timeForms, ID.suspended, ID.jsonNumbers, ID.jsonArrayRoot, ID.noNamespace, ID.faulted404, ID.fullwidth, ...PAGING_IDS]],
  ['{startDate: {lt: "2026-05-12T09:14:10.929777Z"}}', [ID.orderIntake, ID.paymentCapture]],
  ['{startDate: {lte: "2026-05-12T09:14:10.929777Z"}}', [ID.orderIntake, ID.paymentCapture, ID.orderCancelled]],
  // between includes both ends
  ['{startDate: {between: {from: "2026-05-12T09:14:03.513248Z", to: "2026-05-12T09:14:15.132682Z"}}}', [ID.paymentCapture, ID.orderCancelled, ID.customerNotify, ID.orderFulfilment]],
  ['{startTime: {between: {from: "2026-05-12T11:14:03.513248+02:00", to: "2026-05-12T04:14:15.132682-05:00"}}}', [ID.paymentCapture, ID.orderCancelled, ID.customerNotify, ID.orderFulfilment]],
  ['{startDate: {gt: "2026-05-13T10:00:00Z", lt: "2026-05-13T10:00:00.000002Z"}}', [ID.timeForms]],
  ['{startDate: {isNull: true}}', []],
  ['{endDate: {isNull: true}}', [ID.waiting, ID.suspended, ...PAGING_IDS]],
  ['{endTime: {isNull: false}}', WITH_END_DATE],
  ['{endDate: {eq: "2026-05-14T00:00:00.6+09:00"}}', [ID.faulted404]],
  ['{endDate: {gte: "2026-05-13T00:00:00Z"}}', [ID.lateRunning, ID.timeForms, ID.jsonNumbers, ID.jsonArrayRoot, ID.noNamespace, ID.faulted404, ID.fullwidth]],
  ['{endTime: {lt: "2026-05-12T09:14:11.021757Z"}}', [ID.orderIntake, ID.paymentCapture]],
  ['{endTime: {lte: "2026-05-12T09:14:11.021757Z"}}', [ID.orderIntake, ID.paymentCapture, ID.orderCancelled]],
  ['{endDate: {gt: "2026-05-13T16:00:00.4Z"}}', [ID.fullwidth]],
  ['{lastUpdate: {eq: "2026-05-13T10:00:02Z"}}', [ID.timeForms]],
  ['{lastUpdate: {gte: "2026-05-13T09:00:05.7Z", lt: "2026-05-13T10:00:00Z"}}', [ID.lateRunning]],
  ['{lastUpdate: {between: {from: "2026-05-13T08:00:00.0004Z", to: "2026-05-13T09:00:05.7Z"}}}', [ID.waiting, ID.lateRunning]],
  ['{lastUpdate: {ne: "2026-05-13T09:00:05.7Z", lt: "2026-05-13T12:00:00Z"}}', [...FIXTURES, ID.waiting, ID.timeForms, ID.suspended]],
  ['{lastUpdate: {isNull: true}}', []],
];

const INT_CASES: readonly Case[] = [
  ['{error: {status: {eq: 503}}}', [ID.paymentCapture]],
  // ne never matches a missing value: instances without an error are not returned
  ['{error: {status: {ne: 503}}}', [ID.addressNormalizer, ID.faulted404]],
  ['{error: {status: {gt: 404}}}', [ID.paymentCapture, ID.addressNormalizer]],
  ['{error: {status: {gte: 404}}}', [ID.paymentCapture, ID.addressNormalizer, ID.faulted404]],
  ['{error: {status: {lt: 503}}}', [ID.addressNormalizer, ID.faulted404]],
  ['{error: {status: {lte: 404}}}', [ID.faulted404]],
  ['{error: {status: {in: [404, 503, 999]}}}', [ID.paymentCapture, ID.faulted404]],
  ['{error: {status: {in: []}}}', []],
  ['{error: {status: {gte: 400, lt: 500}}}', [ID.faulted404]],
];

const ERROR_STRING_CASES: readonly Case[] = [
  ['{error: {type: {eq: "java.lang.IllegalArgumentException"}}}', [ID.addressNormalizer]],
  ['{error: {type: {startsWith: "https://serverlessworkflow.io/"}}}', [ID.paymentCapture, ID.faulted404]],
  ['{error: {title: {contains: "Postal code"}}}', [ID.addressNormalizer]],
  ['{error: {detail: {contains: "psp_timeout"}}}', [ID.paymentCapture]],
  ['{error: {detail: {isNull: true}, status: {gte: 0}}}', [ID.faulted404]],
  ['{error: {instance: {eq: "do/1/chargeCard"}}}', [ID.paymentCapture]],
  ['{error: {instance: {isNull: true}, status: {eq: 500}}}', [ID.addressNormalizer]],
  // a missing value matches isNull: true, so instances without an error match as well
  ['{error: {instance: {isNull: true}}}', allExcept(ID.paymentCapture, ID.faulted404)],
  ['{error: {title: "Not Found"}}', [ID.faulted404]],
];

const JSON_CASES: readonly Case[] = [
  ['{input: {eq: [{key: "orderId", value: "ORD-7F3A-0042"}]}}', [ID.orderIntake]],
  ['{input: {eq: [{key: "customer.name", value: "José Álvarez"}]}}', [ID.orderIntake]],
  ['{input: {eq: [{key: "customer.name", value: "Zoë O\'Connor"}]}}', [ID.paymentCapture]],
  ['{input: {eq: [{key: "customer.address.city", value: "Zürich"}]}}', [ID.paymentCapture]],
  ['{input: {eq: [{key: "customer.tags.1", value: "früh"}]}}', [ID.orderIntake]],
  ['{input: {eq: [{key: "items.0.sku", value: "BK-101"}]}}', [ID.orderIntake]],
  ['{input: {eq: [{key: "items.0.sku", value: "TB-3"}]}}', [ID.orderCancelled]],
  ['{input: {eq: [{key: "items.1.sku", value: "MG-007"}]}}', [ID.orderIntake]],
  ['{input: {eq: [{key: "items.1.sku", value: "B_2%"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "items.5.sku", value: "BK-101"}]}}', []],
  ['{input: {eq: [{key: "matrix.1.0", value: "3"}]}}', [ID.jsonNumbers]],
  // numbers compare numerically when both sides are numbers; a JSON string "1000" matches as text
  ['{input: {eq: [{key: "amount", value: "1000"}]}}', [ID.jsonNumbers, ID.noNamespace]],
  ['{input: {eq: [{key: "amount", value: "1000.0"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "amount", value: "1000.00"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "amount", value: "999"}]}}', []],
  ['{input: {eq: [{key: "price", value: "12.50"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "negative", value: "-0.5"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "amount.value", value: "129.90"}]}}', [ID.paymentCapture]],
  ['{input: {eq: [{key: "entries.0.debit", value: "129.9"}]}}', [ID.ledgerSync]],
  ['{input: {eq: [{key: "signals.velocity", value: "7"}]}}', [ID.manualReview]],
  // a JSON string that looks like a number is compared as text only
  ['{input: {eq: [{key: "code", value: "1000"}]}}', []],
  ['{input: {eq: [{key: "code", value: "1000.0"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "zip", value: "1000"}]}}', []],
  ['{input: {eq: [{key: "zip", value: "01000"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "flags.vip", value: "true"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "flags.blocked", value: "false"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "flags.vip", value: "false"}]}}', []],
  ['{input: {eq: [{key: "label", value: "true"}]}}', [ID.jsonNumbers]],
  ['{input: {eq: [{key: "retry", value: "false"}]}}', [ID.faulted404]],
  ['{input: {eq: [{key: "address.postalCode", value: ""}]}}', [ID.addressNormalizer]],
  ['{input: {eq: [{key: "special", value: "50%"}]}}', []],
  // array payload: a numeric first segment indexes it
  ['{input: {eq: [{key: "0", value: "1"}]}}', [ID.jsonArrayRoot]],
  ['{input: {eq: [{key: "1", value: "two"}]}}', [ID.jsonArrayRoot]],
  ['{input: {eq: [{key: "2.three", value: "3"}]}}', [ID.jsonArrayRoot]],
  // missing paths never match
  ['{input: {eq: [{key: "doesNotExist", value: "x"}]}}', []],
  ['{input: {eq: [{key: "orderId.x", value: "ORD-7F3A-0042"}]}}', []],
  // every pair must match
  ['{input: {eq: [{key: "orderId", value: "ORD-7F3A-0042"}, {key: "shipTo.country", value: "BR"}]}}', [ID.orderIntake]],
  ['{input: {eq: [{key: "orderId", value: "ORD-7F3A-0042"}, {key: "shipTo.country", value: "PL"}]}}', []],
  ['{output: {eq: [{key: "status", value: "RESERVED"}]}}', [ID.orderIntake]],
  ['{output: {eq: [{key: "message", value: "Reserva confirmada ✅"}]}}', [ID.orderIntake]],
  ['{output: {eq: [{key: "status", value: "ok"}]}}', [ID.jsonNumbers]],
  ['{output: {eq: [{key: "charged", value: "1012.5"}]}}', [ID.jsonNumbers]],
  ['{output: {eq: [{key: "picked.2", value: "TB-3"}]}}', [ID.orderFulfilment]],
  ['{output: {eq: [{key: "complete", value: "true"}]}}', [ID.orderFulfilment]],
  ['{output: {eq: [{key: "done", value: "true"}]}}', [ID.noNamespace]],
  ['{output: {eq: [{key: "score", value: "0.270"}]}}', [ID.manualReview]],
  ['{output: {eq: [{key: "posted", value: "2"}]}}', [ID.ledgerSync]],
  ['{output: {eq: [{key: "results.emailCustomer.id", value: "<20260512.091412@mail.acme.com>"}]}}', [ID.customerNotify]],
  ['{output: {eq: [{key: "0", value: "p"}]}}', []],
];

const JSON_VARIABLE_CASES: readonly VariableCase[] = [
  ['a string with % _ * ? and a backslash', { input: { eq: [{ key: 'special', value: '50%_off*?\\ok' }] } }, [ID.jsonNumbers]],
  ['a Windows path', { input: { eq: [{ key: 'path', value: 'C:\\temp\\50%_off' }] } }, [ID.faulted404]],
  ['a null pair (the Java schema\'s [JsonFieldFilterInput]) is skipped', { input: { eq: [null, { key: 'path', value: 'C:\\temp\\50%_off' }, null] } }, [ID.faulted404]],
  ['a nested array element with special characters', { output: { eq: [{ key: 'receipt.tags.1', value: '50%_off*?\\ok' }] } }, [ID.jsonNumbers]],
  ['a string with a newline and quotes', { input: { eq: [{ key: 'giftNote', value: 'Feliz aniversário!\nCom carinho — "Tia Bia"' }] } }, [ID.orderIntake]],
];

const LOGIC_CASES: readonly Case[] = [
  ['{and: [{namespace: {eq: "com.acme.orders"}}, {status: {eq: COMPLETED}}]}', [ID.orderIntake, ID.customerNotify, ID.orderFulfilment, ID.manualReview]],
  ['{or: [{name: {eq: "ledger-sync"}}, {status: {eq: CANCELLED}}]}', [ID.ledgerSync, ID.orderCancelled, ID.fullwidth]],
  // not matches exactly what its operand does not match, missing values included
  ['{not: {namespace: {eq: "conformance.paging"}}}', NOT_PAGING],
  ['{not: {version: {eq: "1.0.0"}}}', [ID.paymentCapture, ID.orderFulfilment, ID.ledgerSync, ID.addressNormalizer, ID.manualReview, ID.lateRunning, ID.suspended, ID.jsonArrayRoot, ID.noNamespace, ID.timeForms, ID.faulted404, ID.fullwidth]],
  ['{not: {namespace: {ne: "conformance.paging"}}}', [ID.noNamespace, ...PAGING_IDS]],
  ['{not: {endDate: {isNull: true}}}', WITH_END_DATE],
  ['{not: {error: {status: {eq: 503}}}}', allExcept(ID.paymentCapture)],
  ['{not: {error: {status: {ne: 503}}}}', allExcept(ID.addressNormalizer, ID.faulted404)],
  ['{not: {input: {eq: [{key: "amount", value: "1000"}]}}}', allExcept(ID.jsonNumbers, ID.noNamespace)],
  ['{not: {status: {in: []}}}', ALL],
  ['{not: {not: {name: {eq: "zeta"}}}}', [ID.noNamespace]],
  ['{or: [{and: [{namespace: {eq: "com.acme.billing"}}, {status: {eq: FAULTED}}]}, {not: {or: [{namespace: {isNull: false}}, {name: {eq: "nope"}}]}}]}', [ID.paymentCapture, ID.noNamespace]],
  ['{and: []}', ALL],
  ['{or: []}', []],
  ['{name: {startsWith: "order"}, and: [{status: {ne: CANCELLED}}], or: [{version: {eq: "1.0.0"}}, {version: {eq: "1.3.0"}}]}', [ID.orderIntake, ID.orderFulfilment]],
];

const SHORTHAND_LITERAL_CASES: readonly Case[] = [
  ['{status: COMPLETED}', COMPLETED],
  ['{name: "order-intake", namespace: "com.acme.orders"}', [ID.orderIntake, ID.orderCancelled]],
  ['{id: "01KRDQEHBQF7VKFR571KEFRHM5"}', [ID.manualReview]],
  ['{version: "9.0.0"}', [ID.fullwidth]],
  ['{startDate: "2026-05-12T09:14:03.512378Z"}', [ID.orderIntake]],
  ['{lastUpdate: "2026-05-13T10:00:02Z"}', [ID.timeForms]],
  ['{error: {status: 404}}', [ID.faulted404]],
  ['{or: [{name: "ledger-sync"}, {not: {status: COMPLETED}}]}', allExcept(...COMPLETED.filter((id) => id !== ID.ledgerSync))],
  ['{and: [{status: FAULTED}, {not: {namespace: "com.acme.billing"}}]}', [ID.addressNormalizer, ID.faulted404]],
];

const SHORTHAND_VARIABLE_CASES: readonly VariableCase[] = [
  ['an enum value', { status: 'COMPLETED' }, COMPLETED],
  ['two strings', { name: 'order-intake', namespace: 'com.acme.orders' }, [ID.orderIntake, ID.orderCancelled]],
  ['a DateTime', { endDate: '2026-05-12T11:14:03.51595+02:00' }, [ID.orderIntake]],
  ['an Int inside error', { error: { status: 500 } }, [ID.addressNormalizer]],
  ['nested in and/not', { and: [{ status: 'FAULTED' }, { not: { namespace: 'com.acme.billing' } }] }, [ID.addressNormalizer, ID.faulted404]],
  ['nested in or', { or: [{ name: 'zeta' }, { name: 'Zeta' }] }, [ID.waiting, ID.noNamespace]],
];

// ---------------------------------------------------------------------------------------------------------
// Task executions
// ---------------------------------------------------------------------------------------------------------
const T = {
  validateOrder: `${ID.orderIntake}:do/0/validateOrder`,
  reserveStock: `${ID.orderIntake}:do/1/reserveStock`,
  loadInvoice: `${ID.paymentCapture}:do/0/loadInvoice`,
  chargeCard: `${ID.paymentCapture}:do/1/chargeCard`,
  validateOrderCancelled: `${ID.orderCancelled}:do/0/validateOrder`,
  reserveStockCancelled: `${ID.orderCancelled}:do/1/reserveStock`,
  notifyAll: `${ID.customerNotify}:do/0/notifyAll/branch`,
  smsCustomer: `${ID.customerNotify}:do/0/notifyAll/branch/1/smsCustomer`,
  emailCustomer: `${ID.customerNotify}:do/0/notifyAll/branch/0/emailCustomer`,
  markNotified: `${ID.customerNotify}:do/1/markNotified`,
  pickItems: `${ID.orderFulfilment}:do/0/pickItems/do`,
  pickItem1: `${ID.orderFulfilment}:do/0/pickItems/do/0/pickItem`,
  pickItem2: `${ID.orderFulfilment}:do/0/pickItems/do/0/pickItem@1778577255133240`,
  pickItem3: `${ID.orderFulfilment}:do/0/pickItems/do/0/pickItem@1778577255146168`,
  syncLedger: `${ID.ledgerSync}:do/0/syncLedger/try`,
  postEntries1: `${ID.ledgerSync}:do/0/syncLedger/try/0/postEntries`,
  postEntries2: `${ID.ledgerSync}:do/0/syncLedger/try/0/postEntries@1778577258446396`,
  normalizeAddress: `${ID.addressNormalizer}:do/0/normalizeAddress`,
  scoreRisk: `${ID.manualReview}:do/0/scoreRisk`,
  notifyReviewer: `${ID.manualReview}:do/1/notifyReviewer`,
  recordDecision: `${ID.manualReview}:do/2/recordDecision`,
  publishResult: `${ID.manualReview}:do/3/publishResult`,
  waitForApproval: `${ID.waiting}:do/0/waitForApproval`,
  lateCompletion: `${ID.waiting}:do/1/lateCompletion`,
  work: `${ID.lateRunning}:do/0/work`,
  prepareSuspended: `${ID.suspended}:do/0/prepare`,
  price: `${ID.jsonNumbers}:do/0/price`,
  stamp: `${ID.timeForms}:do/0/stamp`,
  stampAgain: `${ID.timeForms}:do/1/stampAgain`,
  lookup: `${ID.faulted404}:do/0/lookup`,
  prepareCancelled: `${ID.fullwidth}:do/0/prepare`,
} as const;

const ALL_TASK_IDS = ALL_TASKS.map((t) => t.id);
const PAGING_TASK_IDS = PAGING_TASKS.map((t) => t.id);
const NOT_PAGING_TASKS = ALL_TASK_IDS.filter((id) => !PAGING_TASK_IDS.includes(id));
const allTasksExcept = (...excluded: string[]): string[] => ALL_TASK_IDS.filter((id) => !excluded.includes(id));
const FIXTURE_TASK_IDS = FIXTURE_TASKS.map((t) => t.id);
const FAULTED_TASKS = [T.chargeCard, T.postEntries1, T.normalizeAddress, T.lookup];

export const TASK_CASES: readonly Case[] = [
  ['{id: {eq: "01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem@1778577255133240"}}', [T.pickItem2]],
  ['{id: {startsWith: "01KRDQEAPWDTERF1SDDX5A5SQV:do/0/pickItems/do/0/pickItem"}}', [T.pickItem1, T.pickItem2, T.pickItem3]],
  ['{id: {contains: "@"}}', [T.pickItem2, T.pickItem3, T.postEntries2]],
  ['{workflowInstanceId: {eq: "01KRDQEBYPFN9AZM0BE5K9B295"}}', [T.syncLedger, T.postEntries1, T.postEntries2]],
  ['{workflowInstanceId: {in: ["01KRDQDZBR7492YQWM736PEENJ", "conformance-placeholder-orphan", "conformance-placeholder-status"]}}', [T.validateOrder, T.reserveStock]],
  ['{taskName: {eq: "pickItem"}}', [T.pickItem1, T.pickItem2, T.pickItem3]],
  ['{taskName: {eq: "validateOrder"}}', [T.validateOrder, T.validateOrderCancelled]],
  ['{taskName: {eq: "validateorder"}}', []],
  ['{taskName: {ne: "step"}}', NOT_PAGING_TASKS],
  ['{taskName: {like: "*Customer"}}', [T.smsCustomer, T.emailCustomer]],
  ['{taskName: {like: "pick????"}}', [T.pickItem1, T.pickItem2, T.pickItem3]],
  ['{taskName: {contains: "Stock"}}', [T.reserveStock, T.reserveStockCancelled]],
  ['{taskName: {startsWith: "stamp"}}', [T.stamp, T.stampAgain]],
  ['{taskName: {endsWith: "Again"}}', [T.stampAgain]],
  ['{taskName: {in: ["lookup", "work", "prepare"]}}', [T.lookup, T.work, T.prepareSuspended, T.prepareCancelled]],
  ['{taskName: {in: []}}', []],
  // null items of in lists (the Java schema's [String], [Int]) equal no value: skipped; `in: [null]` is `in: []`
  ['{taskName: {in: ["lookup", null, "work"]}}', [T.lookup, T.work]],
  ['{taskName: {in: [null]}}', []],
  ['{not: {taskName: {in: [null]}}}', ALL_TASK_IDS],
  ['{taskName: {isNull: true}}', []],
  // taskPosition with and without the leading slash
  ['{taskPosition: {eq: "do/0/validateOrder"}}', [T.validateOrder, T.validateOrderCancelled]],
  ['{taskPosition: {eq: "/do/0/validateOrder"}}', [T.validateOrder, T.validateOrderCancelled]],
  ['{taskPosition: {in: ["/do/1/chargeCard", "do/0/lookup"]}}', [T.chargeCard, T.lookup]],
  ['{taskPosition: {startsWith: "/do/0/notifyAll/branch/"}}', [T.smsCustomer, T.emailCustomer]],
  ['{taskPosition: {startsWith: "do/0/notifyAll/branch/"}}', [T.smsCustomer, T.emailCustomer]],
  ['{taskPosition: {ne: "/do/0/step"}}', NOT_PAGING_TASKS],
  ['{taskPosition: "/do/1/markNotified"}', [T.markNotified]],
  ['{taskPosition: {endsWith: "/try"}}', [T.syncLedger]],
  ['{taskPosition: {contains: "/branch"}}', [T.notifyAll, T.smsCustomer, T.emailCustomer]],
  ['{taskPosition: {like: "do/0/pickItems/do/?/pickItem"}}', [T.pickItem1, T.pickItem2, T.pickItem3]],
  // FAILED is FAULTED
  ['{status: {eq: "FAULTED"}}', FAULTED_TASKS],
  ['{status: {eq: "FAILED"}}', FAULTED_TASKS],
  ['{status: "FAILED"}', FAULTED_TASKS],
  ['{status: {in: ["FAILED", "CANCELLED"]}}', [...FAULTED_TASKS, T.reserveStockCancelled, T.prepareCancelled]],
  ['{status: {in: [null, "FAILED"]}}', FAULTED_TASKS],
  ['{status: {ne: "FAILED"}}', allTasksExcept(...FAULTED_TASKS)],
  ['{status: {eq: "RUNNING"}}', [T.waitForApproval]],
  ['{status: {eq: "CANCELLED"}}', [T.reserveStockCancelled, T.prepareCancelled]],
  ['{status: {in: []}}', []],
  // times, with the enter/exit aliases
  ['{enter: {isNull: true}}', [T.lateCompletion]],
  ['{startDate: {isNull: true}}', [T.lateCompletion]],
  ['{exit: {isNull: true}}', [T.waitForApproval]],
  ['{endDate: {isNull: true}}', [T.waitForApproval]],
  ['{enter: {eq: "2026-05-12T09:14:15.13324Z"}}', [T.pickItem2]],
  ['{startDate: {eq: "2026-05-12T09:14:15.133240Z"}}', [T.pickItem2]],
  ['{enter: {eq: "2026-05-13T05:00:00.5-05:00"}}', [T.stamp]],
  ['{enter: {ne: "2026-05-12T09:14:15.13324Z", between: {from: "2026-05-12T09:14:15.132949Z", to: "2026-05-12T09:14:15.146168Z"}}}', [T.pickItem1, T.pickItem3]],
  ['{enter: {between: {from: "2026-05-12T09:14:15.132949Z", to: "2026-05-12T09:14:15.146168Z"}}}', [T.pickItem1, T.pickItem2, T.pickItem3]],
  ['{startDate: {between: {from: "2026-05-12T09:14:15.132949Z", to: "2026-05-12T09:14:15.146168Z"}}}', [T.pickItem1, T.pickItem2, T.pickItem3]],
  ['{exit: {gt: "2026-05-13T10:00:01.300001Z", lt: "2026-05-13T10:00:01.300003Z"}}', [T.stampAgain]],
  ['{exit: {gte: "2026-05-13T15:00:00.4Z", lte: "2026-05-13T16:00:00.6Z"}}', [T.lookup, T.prepareCancelled]],
  ['{endDate: {gt: "2026-05-13T15:00:00.4Z", lt: "2026-05-13T16:00:00.6Z"}}', []],
  ['{startDate: {lt: "2026-05-12T09:14:03.512698Z"}}', [T.validateOrder]],
  ['{enter: {lte: "2026-05-12T09:14:03.512698Z"}}', [T.validateOrder, T.reserveStock]],
  ['{endDate: {ne: "2026-05-13T08:00:00.0005Z", gte: "2026-05-13T08:00:00Z", lt: "2026-05-13T10:00:00Z"}}', [T.work]],
  // payloads (inputArgs / outputArgs)
  ['{inputArgs: {eq: [{key: "invoiceId", value: "INV-2026-000417"}]}}', [T.loadInvoice, T.chargeCard]],
  ['{inputArgs: {eq: [{key: "amount", value: "1000.0"}]}}', [T.price]],
  ['{inputArgs: {eq: [{key: "express", value: "false"}]}}', [T.price]],
  ['{inputArgs: {eq: [{key: "address.postalCode", value: ""}]}}', [T.normalizeAddress]],
  ['{inputArgs: {eq: [{key: "entries.1.credit", value: "129.90"}]}}', [T.syncLedger, T.postEntries1]],
  ['{inputArgs: {eq: [{key: "n", value: "1"}]}}', [T.work]],
  ['{inputArgs: {eq: [{key: "lines.0.desc", value: "Beratung – 2 h"}]}}', [T.chargeCard]],
  ['{outputArgs: {eq: [{key: "lines.0.net", value: "120"}]}}', [T.loadInvoice]],
  ['{outputArgs: {eq: [{key: "lines.1.net", value: "12.5"}]}}', [T.price]],
  ['{outputArgs: {eq: [{key: "approved", value: "true"}]}}', [T.price]],
  ['{outputArgs: {eq: [{key: "journal.id", value: "J-55817"}]}}', [T.syncLedger, T.postEntries2]],
  ['{outputArgs: {eq: [{key: "amount", value: "1000"}]}}', []],
  ['{outputArgs: {eq: [{key: "nope", value: "1"}]}}', []],
  ['{not: {outputArgs: {eq: [{key: "journal.id", value: "J-55817"}]}}}', allTasksExcept(T.syncLedger, T.postEntries2)],
  // a null pair places no condition
  ['{outputArgs: {eq: [null, {key: "journal.id", value: "J-55817"}]}}', [T.syncLedger, T.postEntries2]],
  ['{outputArgs: {eq: [null]}}', ALL_TASK_IDS],
  // error fields
  ['{error: {status: {eq: 500}}}', [T.postEntries1, T.normalizeAddress]],
  ['{error: {status: {ne: 500}}}', [T.chargeCard, T.lookup]],
  ['{error: {status: {in: [404, 503]}}}', [T.chargeCard, T.lookup]],
  ['{error: {status: {in: [404, null]}}}', [T.lookup]],
  ['{error: {status: {gt: 404, lte: 503}}}', [T.chargeCard, T.postEntries1, T.normalizeAddress]],
  ['{error: {status: {gte: 404, lt: 500}}}', [T.lookup]],
  ['{error: {status: {eq: 418}}}', []],
  ['{error: {instance: {eq: "do/1/chargeCard"}}}', [T.chargeCard]],
  ['{error: {type: {startsWith: "java."}}}', [T.normalizeAddress]],
  ['{error: {detail: {contains: "LEDGER_LOCKED"}}}', [T.postEntries1]],
  ['{error: {title: {eq: "Not Found"}}}', [T.lookup]],
  ['{error: {detail: {isNull: true}, title: {isNull: false}}}', [T.lookup]],
  // and / or / not
  ['{and: [{workflowInstanceId: {eq: "01KRDQEAPWDTERF1SDDX5A5SQV"}}, {not: {id: {contains: "@"}}}]}', [T.pickItems, T.pickItem1]],
  ['{or: [{taskName: {eq: "chargeCard"}}, {status: {eq: "CANCELLED"}}]}', [T.chargeCard, T.reserveStockCancelled, T.prepareCancelled]],
  ['{not: {exit: {isNull: false}}}', [T.waitForApproval]],
  ['{not: {status: {in: ["COMPLETED", "FAILED"]}}}', [T.waitForApproval, T.reserveStockCancelled, T.prepareCancelled]],
  ['{not: {error: {status: {ne: 500}}}}', allTasksExcept(T.chargeCard, T.lookup)],
  ['{not: {enter: {gt: "2026-05-13T00:00:00Z"}}}', [...FIXTURE_TASK_IDS, T.lateCompletion]],
  // placeholders' tasks are never returned
  ['{taskName: {eq: "orphanTask"}}', []],
];

const TASK_VARIABLE_CASES: readonly VariableCase[] = [
  ['shorthand task name', { taskName: 'pickItem' }, [T.pickItem1, T.pickItem2, T.pickItem3]],
  ['shorthand status FAILED', { status: 'FAILED' }, FAULTED_TASKS],
  ['shorthand position with a leading slash', { taskPosition: '/do/0/validateOrder' }, [T.validateOrder, T.validateOrderCancelled]],
  ['shorthand times nested in or', { or: [{ enter: '2026-05-12T09:14:15.13324Z' }, { exit: '2026-05-13T10:00:01.300002Z' }] }, [T.pickItem2, T.stampAgain]],
  ['a JSON value with a dash and a unicode dash', { inputArgs: { eq: [{ key: 'lines.0.desc', value: 'Beratung – 2 h' }] } }, [T.chargeCard]],
  ['null items of in lists and a null JSON pair are skipped', { taskName: { in: ['lookup', null] }, status: { in: [null, 'FAILED'] }, inputArgs: { eq: [null] } }, [T.lookup]],
];

function declareLiteralCases(title: string, cases: readonly Case[], run: (filter: string) => Promise<string[]>): void {
  describe(title, () => {
    for (const [filter, expected] of cases) {
      it(`filter: ${filter}`, async () => {
        expect(await run(filter)).toEqual(byId(expected));
      });
    }
  });
}

function declareVariableCases(title: string, cases: readonly VariableCase[], run: (filter: unknown) => Promise<string[]>): void {
  describe(title, () => {
    for (const [name, filter, expected] of cases) {
      it(`${name}: $filter = ${JSON.stringify(filter)}`, async () => {
        expect(await run(filter)).toEqual(byId(expected));
      });
    }
  });
}

export function describeFilters(client: GraphQLClient): void {
  const instances = (filter: string) => instanceIdsForLiteral(client, filter);
  const instancesVar = (filter: unknown) => instanceIdsForVariable(client, filter);
  const tasks = (filter: string) => taskIdsForLiteral(client, filter);
  const tasksVar = (filter: unknown) => taskIdsForVariable(client, filter);

  describe('instance filters', () => {
    declareLiteralCases('String fields (id, name, namespace, version)', INSTANCE_STRING_CASES, instances);
    declareVariableCases('String fields through variables', INSTANCE_STRING_VARIABLE_CASES, instancesVar);
    declareLiteralCases('status', STATUS_CASES, instances);
    declareLiteralCases('DateTime fields (startDate/startTime, endDate/endTime, lastUpdate)', TIME_CASES, instances);
    declareLiteralCases('Int field error.status', INT_CASES, instances);
    declareLiteralCases('error String fields', ERROR_STRING_CASES, instances);
    declareLiteralCases('JSON input/output', JSON_CASES, instances);
    declareVariableCases('JSON input/output through variables', JSON_VARIABLE_CASES, instancesVar);
    declareLiteralCases('and / or / not (two-valued logic)', LOGIC_CASES, instances);
    declareLiteralCases('shorthand in literals', SHORTHAND_LITERAL_CASES, instances);
    declareVariableCases('shorthand in variables', SHORTHAND_VARIABLE_CASES, instancesVar);

    it('ne and not{eq} differ exactly by the rows where the value is missing', async () => {
      const ne = await instances('{namespace: {ne: "conformance.paging"}}');
      const notEq = await instances('{not: {namespace: {eq: "conformance.paging"}}}');
      expect(notEq.filter((id) => !ne.includes(id))).toEqual([ID.noNamespace]);
      expect(ne.filter((id) => !notEq.includes(id))).toEqual([]);
    });

    it('the aliases give the same results as the fields they alias', async () => {
      for (const [alias, field, condition] of [
        ['startTime', 'startDate', '{gte: "2026-05-13T10:00:00.000001Z", lt: "2026-06-01T00:00:05Z"}'],
        ['endTime', 'endDate', '{lte: "2026-05-12T09:14:11.228517Z"}'],
        ['endTime', 'endDate', '{isNull: true}'],
      ] as const) {
        const viaAlias = await instances(`{${alias}: ${condition}}`);
        expect(viaAlias.length).toBeGreaterThan(0);
        expect(viaAlias).toEqual(await instances(`{${field}: ${condition}}`));
      }
    });

    it('introspection still shows the typed filter inputs behind the shorthand', async () => {
      const data = await client.data('{ __type(name: "WorkflowInstanceFilterInput") { inputFields { name type { name kind } } } }');
      const fields = (data['__type'] as { inputFields: { name: string; type: { name: string; kind: string } }[] }).inputFields;
      const typeOf = (name: string) => fields.find((f) => f.name === name)?.type;
      expect(typeOf('status')).toEqual({ name: 'WorkflowInstanceStatusFilterInput', kind: 'INPUT_OBJECT' });
      expect(typeOf('name')).toEqual({ name: 'StringFilterInput', kind: 'INPUT_OBJECT' });
      expect(typeOf('startDate')).toEqual({ name: 'DateTimeFilterInput', kind: 'INPUT_OBJECT' });
    });
  });

  describe('task execution filters', () => {
    declareLiteralCases('fields, operators, aliases and logic', TASK_CASES, tasks);
    declareVariableCases('through variables', TASK_VARIABLE_CASES, tasksVar);

    it('enter/exit give the same results as startDate/endDate', async () => {
      for (const [alias, field, condition] of [
        ['enter', 'startDate', '{gt: "2026-05-12T09:14:15Z", lt: "2026-05-13T00:00:00Z"}'],
        ['exit', 'endDate', '{between: {from: "2026-05-13T08:00:00Z", to: "2026-05-13T12:00:00.4Z"}}'],
      ] as const) {
        const viaAlias = await tasks(`{${alias}: ${condition}}`);
        expect(viaAlias.length).toBeGreaterThan(0);
        expect(viaAlias).toEqual(await tasks(`{${field}: ${condition}}`));
      }
    });

    it('inputArgs/outputArgs of placeholders never match', async () => {
      expect(await tasks('{inputArgs: {eq: [{key: "amount", value: "1000"}]}}')).toEqual([T.price]);
    });
  });
}
