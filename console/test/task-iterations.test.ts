// Which execution of its position a task execution is, and which execution raised a run's error: for any set of
// executions (fast-check), the numbers at one position are 1..n in start order, as the timeline numbers its bars.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { iterationOf, raisingTask, samePosition } from '../src/task-iterations.ts';
import type { PositionedTask } from '../src/task-iterations.ts';
import { layoutTimeline } from '../src/timeline-layout.ts';

const at = (ms: number): string => new Date(Date.parse('2026-05-12T09:00:00Z') + ms).toISOString();
const LOOP = 'do/0/pickItems/do/0/pickItem';

const tasksArb = fc
  .array(
    fc.record({
      position: fc.constantFrom('do/0/a', LOOP, 'do/1/try/try/do/0/call'),
      start: fc.integer({ min: 0, max: 5000 }),
      status: fc.constantFrom('COMPLETED', 'FAULTED', 'RUNNING'),
    }),
    { maxLength: 20 },
  )
  .map((rows) => rows.map((r, i) => ({ id: `run:${r.position}#${i}`, taskName: r.position.split('/').at(-1) ?? '', taskPosition: r.position, status: r.status, startDate: at(r.start), endDate: at(r.start + 10) })));

describe('task iterations', () => {
  it('numbers the executions of a position 1..n in start order, the same numbers the timeline shows', () => {
    fc.assert(
      fc.property(tasksArb, (tasks) => {
        const timeline = layoutTimeline(tasks, at(0), at(6000), Date.parse(at(6000)));
        for (const lane of timeline.lanes) {
          for (const bar of lane.bars) {
            const iteration = iterationOf(tasks, bar.task as PositionedTask);
            expect(iteration).toMatchObject({ number: bar.attempt, of: lane.bars.length });
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('calls a repeat inside another task an iteration, under a try an attempt, at the top level an execution', () => {
    const task = (id: string, position: string, ms: number): PositionedTask => ({ id, taskPosition: position, status: 'COMPLETED', startDate: at(ms) });
    const loop = [task('b', LOOP, 20), task('a', LOOP, 10), task('c', LOOP, 30)];
    expect(iterationOf(loop, loop[0] as PositionedTask)).toEqual({ number: 2, of: 3, kind: 'iteration' });
    expect(iterationOf([task('x', 'do/1/try/try/do/0/call', 0)], task('x', 'do/1/try/try/do/0/call', 0)).kind).toBe('attempt');
    expect(iterationOf([task('y', 'do/1/chargeCard', 0)], task('y', 'do/1/chargeCard', 0))).toEqual({ number: 1, of: 1, kind: 'execution' });
  });

  it("finds the execution that raised the run's error by its position (with or without a leading /)", () => {
    const tasks: PositionedTask[] = [
      { id: 'r:do/1/charge', taskPosition: 'do/1/charge', status: 'FAULTED', startDate: at(0) },
      { id: 'r:do/1/charge@2', taskPosition: 'do/1/charge', status: 'FAULTED', startDate: at(20) },
      { id: 'r:do/1/charge@3', taskPosition: 'do/1/charge', status: 'COMPLETED', startDate: at(30) },
      { id: 'r:do/0/load', taskPosition: 'do/0/load', status: 'COMPLETED', startDate: at(-10) },
    ];
    expect(raisingTask(tasks, '/do/1/charge')?.id).toBe('r:do/1/charge@2');
    expect(raisingTask(tasks, 'do/0/load')?.id).toBe('r:do/0/load');
    expect(raisingTask(tasks, 'do/9/elsewhere')).toBeNull();
    expect(raisingTask(tasks, null)).toBeNull();
    expect(samePosition('/do/0/load', 'do/0/load')).toBe(true);
  });
});
