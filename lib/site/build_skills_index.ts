/**
 * The Agent Skills discovery index, `/.well-known/agent-skills/index.json` (Agent Skills
 * Discovery via Well-Known URIs, v0.2.0): one `skill-md` entry per skill of the corpus, with the
 * SHA-256 digest of the exact bytes its URL serves.
 *
 * @module
 */
import { sha256Hex } from "../store/digest.ts";
import type { CorpusSkill } from "./corpus.ts";
import { fillBase, toSkillPath } from "./site.ts";

/** The schema of the index (v0.2.0). */
export const SKILLS_INDEX_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/** One entry of the index. */
export interface SkillsIndexEntry {
  name: string;
  type: "skill-md";
  description: string;
  /** Absolute URL of the SKILL.md. */
  url: string;
  /** `sha256:` and the hexadecimal SHA-256 of the served bytes. */
  digest: string;
}

/** The index document. */
export interface SkillsIndex {
  $schema: string;
  skills: SkillsIndexEntry[];
}

/**
 * The text a skill's URL serves: its SKILL.md with `{base}` filled in.
 *
 * @param skill The skill.
 * @param baseUrl The public origin.
 */
export function toSkillText(skill: CorpusSkill, baseUrl: string): string {
  return fillBase(skill.markdown, baseUrl);
}

/**
 * Builds the index. Web Crypto digests are asynchronous, so this is too.
 *
 * @param skills The corpus's skills.
 * @param baseUrl The public origin.
 * @returns The index, entries in the corpus's order.
 */
export async function buildSkillsIndex(
  skills: readonly CorpusSkill[],
  baseUrl: string,
): Promise<SkillsIndex> {
  return {
    $schema: SKILLS_INDEX_SCHEMA,
    skills: await Promise.all(skills.map(async (skill) => ({
      name: skill.name,
      type: "skill-md" as const,
      description: skill.description,
      url: baseUrl + toSkillPath(skill.name),
      digest: `sha256:${await sha256Hex(toSkillText(skill, baseUrl))}`,
    }))),
  };
}
