// The person's answers to what a run asks: a tool call's approval and a
// `/plan` plan card. They do not depend on the session shown: a card in
// a sub-agent's transcript, or one opened from a notice, answers the same.
import * as ipc from '../ipc';
import type { ApprovalDecision, PlanAnswer } from '../ipc';

import { toasts } from './toasts.svelte';

class Approvals {
  /** Approval answers sent from this page, by request id (their buttons stay disabled). */
  sent = $state.raw(new Map<string, ApprovalDecision>());

  /** Answers an approval request; the card shows the decision when approval_resolved comes. */
  async approve(requestId: string, decision: ApprovalDecision): Promise<void> {
    if (this.sent.has(requestId)) return;
    this.sent = new Map(this.sent).set(requestId, decision);
    try {
      // False: no longer waiting (answered elsewhere, or the run stopped);
      // approval_resolved or the run's end closes the question.
      const waiting = await ipc.approve(requestId, decision);
      if (!waiting) toasts.show('That request was no longer waiting.');
    } catch (e) {
      const sent = new Map(this.sent);
      sent.delete(requestId);
      this.sent = sent;
      toasts.error(`Could not answer: ${ipc.errorInfo(e).message}`);
    }
  }

  /** Answers a `/plan` plan card (plan_answered closes it). */
  async answerPlan(requestId: string, answer: PlanAnswer): Promise<void> {
    try {
      if (!(await ipc.answerPlan(requestId, answer))) toasts.show('That plan was no longer waiting.');
    } catch (e) {
      toasts.error(`Could not answer: ${ipc.errorInfo(e).message}`);
    }
  }
}

export const approvals = new Approvals();
