// The target table, in plan order.

import type { TargetId } from "../types";
import { agents } from "./agents";
import { claude } from "./claude";
import { codex } from "./codex";
import { cursor } from "./cursor";
import { gemini } from "./gemini";
import { opencode } from "./opencode";
import type { Target } from "./target";

export const TARGETS: Record<TargetId, Target> = { codex, claude, cursor, gemini, opencode, agents };

export type { Target, TargetContext, Snippet } from "./target";
