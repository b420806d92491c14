// cutline-review: OpenClaw holds each compaction until a person answers in cutline (installed by `cutline hook install openclaw`).
//
// A compaction provider (agents.defaults.compaction.provider = "cutline"): OpenClaw's safeguard hands it the
// messages to summarize; it hands them to cutline over its private Unix socket (review-client.js, shared with
// cutline's pi extension) and waits. Accept -> the person's summary (OpenClaw still appends its recent-turn
// sections); reject, the timeout, or nothing of cutline listening -> an empty answer, and OpenClaw summarizes
// on its own (a provider cannot cancel a compaction).
// Settings: CUTLINE_SOCKET and CUTLINE_REVIEW_TIMEOUT (seconds) override the installed ones below.
import { holdForReview } from "./review-client.js";

const CONFIG = /* cutline:config */ { socket: null, timeoutSeconds: 900 } /* cutline:end */;
const FALLBACK = "OpenClaw summarizes on its own";

async function review(params, log) {
	const socketPath = process.env.CUTLINE_SOCKET || CONFIG.socket;
	if (!socketPath) return "";
	const timeoutSeconds = Number(process.env.CUTLINE_REVIEW_TIMEOUT || CONFIG.timeoutSeconds) || 900;
	const { outcome, id, reply } = await holdForReview({
		socketPath,
		timeoutSeconds,
		signal: params.signal,
		hold: {
			type: "hold",
			agent: "openclaw",
			reason: null,
			timeoutSeconds,
			customInstructions: params.customInstructions ?? null,
			preparation: { messagesToSummarize: params.messages ?? [], previousSummary: params.previousSummary ?? null },
		},
		say: (text) => log(text),
		fallback: FALLBACK,
	});
	if (outcome === "aborted") throw params.signal?.reason ?? new Error("compaction aborted");
	if (outcome !== "answer") return "";
	if (reply.decision === "accept" && typeof reply.compaction?.summary === "string") return reply.compaction.summary;
	log(`cutline: compaction ${id} rejected; ${FALLBACK}`);
	return "";
}

export default {
	id: "cutline-review",
	name: "cutline review",
	description: "Holds each compaction for a person's review in cutline",
	register(api) {
		const log = (text) => (api.logger?.info ? api.logger.info(text) : process.stderr.write(`${text}\n`));
		api.registerCompactionProvider({
			id: "cutline",
			label: "cutline review",
			summarize: (params) => review(params, log),
		});
	},
};
