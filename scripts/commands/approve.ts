import { WorkflowUpdateFailedError } from '@temporalio/client';
import { userInfo } from 'node:os';
import { parse, UsageError, type Command } from '../lib/args.js';
import { connect, findRun } from '../lib/runs.js';

function approvalCommand(verb: 'approve' | 'reject'): Command {
  return {
    name: verb,
    summary: `${verb} a candidate a run is holding for approval (gate.requireApproval)`,
    usage: `flywheel ${verb} RUN_ID --reason TEXT [--by NAME]

Sends the "${verb}" Update to a run whose gate waits for approval; it answers at once whether it landed
(a run that is not waiting, or was already decided, refuses it). From the Temporal UI, send the signal
"${verb}" with {"by": "...", "reason": "..."} instead.
  RUN_ID         run id or workflow id (flywheel runs lists them)
  --reason TEXT  why; recorded with the decision and, on approval, with the alias move
  --by NAME      who decides (default: your user name)`,
    async run(argv) {
      const { values, positionals } = parse(argv, { reason: { type: 'string' }, by: { type: 'string' } }, true);
      const [id, ...rest] = positionals;
      if (!id || rest.length) throw new UsageError(`expected: flywheel ${verb} RUN_ID --reason TEXT`);
      if (!values.reason?.trim()) throw new UsageError('--reason is required: the decision is recorded with it');
      const client = await connect();
      try {
        const handle = await findRun(client, id);
        const answer = await handle.executeUpdate<string, [{ by: string; reason: string }]>(verb, {
          args: [{ by: values.by ?? userInfo().username, reason: values.reason }],
        });
        console.log(`${handle.workflowId}: ${answer}`);
        return 0;
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError) {
          console.error(`flywheel ${verb}: refused: ${(err.cause as Error | undefined)?.message ?? err.message}`);
          return 1;
        }
        throw err;
      } finally {
        await client.connection.close();
      }
    },
  };
}

export const approveCommand = approvalCommand('approve');
export const rejectCommand = approvalCommand('reject');
