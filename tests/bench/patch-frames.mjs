// patch-frames.mjs: the collection and the patch frames the path and history benches feed (the
// issue's op mix, deterministic per seed, so that runs and the two benches are comparable).

import { mulberry32 } from '../fixtures/provider/state.mjs';

const PREVIEW = 'Thanks for the notes from Tuesday. I went through the figures again and the second quarter '
  + 'looks better than we thought; the only open point is the travel budget, which we can settle on Friday.';
export function item(i, small) {
  if (small) return { id: `m${i}`, type: 'item', properties: { subject: `Message ${i}`, unread: true } };
  return {
    id: `m${i}`, type: 'item',
    properties: {
      subject: `Quarterly report, draft ${i}`, from: 'alice.example@example.com', preview: PREVIEW,
      unread: true, size: 12000 + i, received: '2026-11-23T10:00:00Z', labels: ['inbox', 'work'],
    },
    meta: { salience: 0.5, summary: `From Alice: quarterly report draft ${i}` },
    affordances: [
      { action: 'archive', label: 'Archive' },
      { action: 'reply', label: 'Reply', params: { type: 'object', properties: { body: { type: 'string' } }, required: ['body'] } },
    ],
  };
}

/** Frames (texts) of opsPerFrame ops each, and the ops as objects for the baseline. */
export function makeFrames(sub, n, count, opsPerFrame, small, seed) {
  const r = mulberry32(seed); // deterministic, so runs are comparable
  const ids = Array.from({ length: n }, (_, i) => `m${i}`);
  let next = n, seq = 0;
  const frames = [];
  for (let f = 0; f < count; f++) {
    const ops = [];
    for (let k = 0; k < opsPerFrame; k++) {
      const x = r();
      const pick = () => Math.floor(r() * ids.length);
      if (x < 0.7) ops.push({ op: 'replace', path: `/items/${ids[pick()]}/properties/subject`, value: `Re: draft ${f}.${k}` });
      else if (x < 0.8) {
        const fresh = item(next++, small);
        const at = Math.floor(r() * (ids.length + 1));
        ops.push({ op: 'add', path: `/items/${fresh.id}`, value: fresh, index: at });
        ids.splice(at, 0, fresh.id);
      } else if (x < 0.9 && ids.length > 1) {
        const at = pick();
        ops.push({ op: 'remove', path: `/items/${ids[at]}` });
        ids.splice(at, 1);
      } else ops.push({ op: 'add', path: `/items/${ids[pick()]}/meta/salience`, value: Math.round(r() * 100) / 100 });
    }
    seq++;
    frames.push(`{"type":"patch","subscription":${JSON.stringify(sub)},"version":${seq + 1},"seq":${seq},"ops":${JSON.stringify(ops)}}`);
  }
  return frames;
}

export function snapshotText(sub, tree) {
  return `{"type":"snapshot","id":${JSON.stringify(sub)},"version":1,"seq":0,"tree":${JSON.stringify(tree)}}`;
}
