// string-requests.js: the UI's String requests, answered with string-webhook.js (the daemon's
// webhook, agents and event stream) and settings-store.js (where the webhook URL is kept):
// SEND_TO_STRING (the panel), STRING_FIND_AGENTS and STRING_USE_AGENT (Options). The webhook URL
// (a secret) goes from storage or the daemon to the daemon only, never into a reply.

import { Request, ErrorCode } from '../shared/messages.js';
import { stringWebhookUrl, stringWebhookInfo, setStringWebhook, parseStringWebhook, noteStringAgent } from '../shared/settings-store.js';
import { stringPayload, sendWithReceipt, findAgents, useAgent } from './string-webhook.js';
import { RequestError, needConnection, needSub, subscriptionInfo } from './panel-ports.js';
import { transportText } from '../shared/status-text.js';

/** @type {import('./panel-ports.js').RequestTable} */
export const stringRequests = {
  requests: {
    async [Request.SEND_TO_STRING](ui, m) {
      const conn = needConnection(ui, m.key);
      const sub = needSub(conn, m.sub);
      const consumer = /** @type {import('../../js-glue/slop-core.js').SlopConsumerT} */ (conn.consumer); // needSub checked it
      const info = subscriptionInfo(consumer, sub);
      if (!info?.nodes) throw new RequestError(ErrorCode.BAD_STATE, 'Nothing to send: the provider has no state yet.');
      const url = await stringWebhookUrl();
      if (!url) throw new RequestError(ErrorCode.BAD_STATE, 'No String agent is set: find it or paste its webhook URL (`string webhook show`) in Options.');
      const agentId = (await stringWebhookInfo())?.agentId ?? null;
      const payload = stringPayload({
        pageUrl: conn.pageUrl, provider: conn.provider, live: conn.live, status: conn.status,
        // A local app has no URL: its socket or command, as the panel says it.
        transport: conn.isPostMessage ? 'postMessage, in the page'
          : conn.transport.url ?? transportText(/** @type {import('../shared/messages.js').ProviderInfo} */ ({ source: 'local', transport: conn.transport })),
        version: info.version ?? 0, nodes: info.nodes, treeText: consumer.treeText(sub) ?? '', tools: consumer.tools(sub),
      });
      const answer = await sendWithReceipt(url, payload.text, { agentId });
      // A pasted URL's agent, named by its daemon: its event stream is watched from the next send.
      if (answer.ok && !agentId && answer.agentId) await noteStringAgent(url, answer.agentId).catch(() => {});
      return { ...answer, bytes: payload.bytes, kept: payload.kept, total: payload.total };
    },
    // Options, "Find String agents on this machine": the worker asks the daemon, so the webhook
    // URL (a secret) goes from the daemon into storage without passing through a page.
    [Request.STRING_FIND_AGENTS](ui, m) {
      if (m.address != null && typeof m.address !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'address must be a string');
      return findAgents(m.address);
    },
    [Request.STRING_USE_AGENT](ui, m) {
      if ((m.address != null && typeof m.address !== 'string') || typeof m.agentId !== 'string') throw new RequestError(ErrorCode.BAD_REQUEST, 'address and agentId must be strings');
      return useAgent(m.address, m.agentId, { accept: parseStringWebhook, store: (url, agentId) => setStringWebhook(url, { agentId }) });
    },
  },
};
