// cutline-review: pi holds each compaction until a person answers in cutline (installed by `cutline hook install pi`).
//
// On `session_before_compact` this hands pi's preparation to cutline over its private Unix socket
// (review-client.js, shared with cutline's OpenClaw plugin) and waits: accept -> pi writes the
// person's summary with pi's own cut; reject -> the compaction is cancelled; past the timeout ->
// pi's own summary goes ahead (cutline's inbox says so). When nothing of cutline listens (no desk,
// no `cutline inbox --watch`) it steps aside at once.
// Settings: CUTLINE_SOCKET and CUTLINE_REVIEW_TIMEOUT (seconds) override the installed ones below.
import { holdForReview } from "./review-client.js";

const CONFIG = /* cutline:config */ { socket: null, timeoutSeconds: 900 } /* cutline:end */;

// pi's preparation holds Sets and Maps (its file operations): sent as arrays and objects
function jsonSafe(_key, value) {
	if (value instanceof Set) return [...value];
	if (value instanceof Map) return Object.fromEntries(value);
	if (typeof value === "bigint") return Number(value);
	return value;
}

function tell(ctx, text, level = "info") {
	try {
		if (ctx.hasUI) {
			ctx.ui.notify(text, level);
			return;
		}
	} catch {
		// fall through to stderr
	}
	process.stderr.write(`${text}\n`);
}

export default function cutlineReview(pi) {
	pi.on("session_before_compact", async (event, ctx) => {
		const socketPath = process.env.CUTLINE_SOCKET || CONFIG.socket;
		if (!socketPath) return undefined;
		const timeoutSeconds = Number(process.env.CUTLINE_REVIEW_TIMEOUT || CONFIG.timeoutSeconds) || 900;
		const sessions = ctx.sessionManager;
		const hold = {
			type: "hold",
			agent: "pi",
			sessionFile: sessions?.getSessionFile?.() ?? null,
			sessionId: sessions?.getSessionId?.() ?? null,
			cwd: ctx.cwd ?? null,
			reason: event.reason ?? (event.customInstructions ? "manual" : null), // pi 0.73 does not say
			timeoutSeconds,
			customInstructions: event.customInstructions ?? null,
			preparation: event.preparation,
		};
		const { outcome, id, reply } = await holdForReview({
			socketPath,
			timeoutSeconds,
			signal: event.signal,
			hold,
			say: (text, level) => tell(ctx, text, level),
			fallback: "pi's own summary goes ahead",
			replacer: jsonSafe,
		});
		if (outcome !== "answer") return undefined;
		if (reply.decision === "accept" && reply.compaction && typeof reply.compaction.summary === "string") {
			const c = reply.compaction;
			return {
				compaction: {
					summary: c.summary,
					firstKeptEntryId: c.firstKeptEntryId ?? event.preparation.firstKeptEntryId,
					tokensBefore: c.tokensBefore ?? event.preparation.tokensBefore,
					details: c.details,
				},
			};
		}
		if (reply.decision === "reject") {
			tell(ctx, `cutline: compaction ${id} rejected`);
			return { cancel: true };
		}
		return undefined;
	});
}
