// cutline-review: OpenClaw holds each compaction until a person answers in cutline (installed by `cutline hook install openclaw`).
//
// A compaction provider (agents.defaults.compaction.provider = "cutline"): OpenClaw's safeguard hands it the
// messages to summarize; it hands them to cutline over its private Unix socket and waits. Accept -> the person's
// summary (OpenClaw still appends its recent-turn sections); reject, the timeout, or nothing of cutline listening
// -> an empty answer, and OpenClaw summarizes on its own (a provider cannot cancel a compaction).
// Settings: CUTLINE_SOCKET and CUTLINE_REVIEW_TIMEOUT (seconds) override the installed ones below.
import net from "node:net";

const CONFIG = /* cutline:config */ { socket: null, timeoutSeconds: 900 } /* cutline:end */;
const CONNECT_MS = 1000;
const RECONNECT_MS = 500;
const MAX_WAIT_MS = 2 ** 31 - 1;

function connect(path, ms) {
	return new Promise((resolve) => {
		const sock = net.createConnection(path);
		const timer = setTimeout(() => {
			sock.destroy();
			resolve(null);
		}, ms);
		sock.once("connect", () => {
			clearTimeout(timer);
			resolve(sock);
		});
		sock.once("error", () => {
			clearTimeout(timer);
			sock.destroy();
			resolve(null);
		});
	});
}

function lineReader(sock) {
	let buffer = "";
	let closed = false;
	let wake = null;
	const queue = [];
	sock.setEncoding("utf8");
	sock.on("data", (data) => {
		buffer += data;
		let at;
		while ((at = buffer.indexOf("\n")) >= 0) {
			const line = buffer.slice(0, at);
			buffer = buffer.slice(at + 1);
			try {
				queue.push(JSON.parse(line));
			} catch {
				queue.push({ type: "refused", reason: "cutline sent a line that is not JSON" });
			}
		}
		if (wake) wake();
	});
	const end = () => {
		closed = true;
		if (wake) wake();
	};
	sock.on("close", end);
	sock.on("error", end);
	return async function next(ms, signal) {
		for (;;) {
			if (queue.length) return queue.shift();
			if (closed) return "closed";
			if (signal?.aborted) return "aborted";
			const woke = await new Promise((resolve) => {
				const onAbort = () => finish("aborted");
				const timer = setTimeout(() => finish("timeout"), Math.max(1, Math.min(ms, MAX_WAIT_MS)));
				function finish(why) {
					clearTimeout(timer);
					signal?.removeEventListener("abort", onAbort);
					wake = null;
					resolve(why);
				}
				wake = () => finish(null);
				signal?.addEventListener("abort", onAbort, { once: true });
			});
			if (woke) return woke;
		}
	};
}

function send(sock, message) {
	try {
		sock.write(`${JSON.stringify(message)}\n`);
	} catch {
		// the listener is gone
	}
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function review(params, log) {
	const socketPath = process.env.CUTLINE_SOCKET || CONFIG.socket;
	if (!socketPath) return "";
	const timeoutSeconds = Number(process.env.CUTLINE_REVIEW_TIMEOUT || CONFIG.timeoutSeconds) || 900;
	const deadline = Date.now() + timeoutSeconds * 1000;
	const signal = params.signal;
	let sock = await connect(socketPath, CONNECT_MS);
	if (!sock) return ""; // nothing of cutline listens: OpenClaw summarizes on its own
	let message;
	try {
		message = JSON.stringify({
			type: "hold",
			agent: "openclaw",
			reason: null,
			timeoutSeconds,
			customInstructions: params.customInstructions ?? null,
			preparation: { messagesToSummarize: params.messages ?? [], previousSummary: params.previousSummary ?? null },
		});
	} catch (error) {
		sock.destroy();
		log(`cutline: cannot send this compaction for review (${error}); OpenClaw summarizes on its own`);
		return "";
	}
	let id = null;
	for (;;) {
		sock.write(`${message}\n`);
		const next = lineReader(sock);
		for (;;) {
			const reply = await next(deadline - Date.now(), signal);
			if (reply === "closed") break;
			if (reply === "aborted") {
				if (id) send(sock, { type: "withdraw", id });
				sock.end();
				throw signal.reason ?? new Error("compaction aborted");
			}
			if (reply === "timeout") {
				if (id) send(sock, { type: "timeout", id });
				sock.end();
				log(`cutline: no answer to ${id} in ${timeoutSeconds} s; OpenClaw summarizes on its own`);
				return "";
			}
			if (reply.type === "held") {
				if (!id) {
					id = reply.id;
					log(`cutline: compaction ${id} waits for your review: \`cutline accept ${id}\` / \`cutline reject ${id}\``);
				}
			} else if (reply.type === "refused") {
				sock.destroy();
				log(`cutline refused the compaction (${reply.reason}); OpenClaw summarizes on its own`);
				return "";
			} else if (reply.type === "answer") {
				sock.end();
				if (reply.decision === "accept" && typeof reply.compaction?.summary === "string") return reply.compaction.summary;
				log(`cutline: compaction ${id} rejected; OpenClaw summarizes on its own`);
				return "";
			}
		}
		sock.destroy();
		if (!id) return "";
		sock = null;
		while (!sock) {
			if (Date.now() >= deadline || signal?.aborted) return "";
			await sleep(RECONNECT_MS);
			sock = await connect(socketPath, CONNECT_MS);
		}
		message = JSON.stringify({ type: "resume", id });
	}
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
