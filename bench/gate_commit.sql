-- The raw SQL of one gate COMMIT (SPEC §7), as the real code issues it, against the same
-- schema: replay check, evidence read, suppression and policy reads, fact-key lock row,
-- compare-and-set, proposal + receipt + version + evidence + projection + outbox.
\set n random(1, 9000000000000000000)
BEGIN;
SELECT payload_hash FROM proposals WHERE tenant_id = 'raw' AND proposal_id = md5(:n::text) || md5(:n::text);
SELECT id FROM messages WHERE tenant_id = 'raw' AND message_id = 'm' || :n ORDER BY revision DESC LIMIT 1;
SELECT content_hash FROM suppressions WHERE tenant_id = 'raw' AND subject_id = 's' || :n AND content_hash IN (md5('a'), md5('b')) LIMIT 1;
SELECT profile FROM tenant_policies WHERE tenant_id = 'raw';
SELECT current_version FROM fact_keys WHERE tenant_id = 'raw' AND subject_id = 's' || :n AND scope_kind = 'user' AND scope_key = 'u' AND kind = 'preference' AND normalized_key = 'preference.editor' AND claim_key = '';
INSERT INTO fact_keys (tenant_id, subject_id, scope_kind, scope_key, kind, normalized_key, claim_key, memory_id, current_version, updated_at) VALUES ('raw', 's' || :n, 'user', 'u', 'preference', 'preference.editor', '', 'mem_' || :n, 0, now()) ON CONFLICT DO NOTHING;
SELECT id, current_version, memory_id FROM fact_keys WHERE tenant_id = 'raw' AND subject_id = 's' || :n AND scope_kind = 'user' AND scope_key = 'u' AND kind = 'preference' AND normalized_key = 'preference.editor' AND claim_key = '' FOR UPDATE;
SELECT version FROM current_memories WHERE memory_id = 'mem_' || :n;
UPDATE fact_keys SET current_version = 1, updated_at = now() WHERE memory_id = 'mem_' || :n AND current_version = 0;
INSERT INTO memory_versions (memory_id, version, tenant_id, subject_id, scope_kind, scope_key, kind, normalized_key, claim_key, value_json, status, proposal_id, auto, derived_from, valid_from, recorded_at) VALUES ('mem_' || :n, 1, 'raw', 's' || :n, 'user', 'u', 'preference', 'preference.editor', '', '"vim"', 'committed', md5(:n::text) || md5(:n::text), true, '[]', now(), now());
INSERT INTO memory_evidence (memory_id, version, tenant_id, message_id, revision) VALUES ('mem_' || :n, 1, 'raw', 'm' || :n, 1) ON CONFLICT DO NOTHING;
DELETE FROM current_memories WHERE memory_id = 'mem_' || :n;
INSERT INTO current_memories (memory_id, version, tenant_id, subject_id, scope_kind, scope_key, kind, normalized_key, claim_key, value_json, updated_at) VALUES ('mem_' || :n, 1, 'raw', 's' || :n, 'user', 'u', 'preference', 'preference.editor', '', '"vim"', now());
INSERT INTO outbox (topic, event_key, tenant_id, payload, created_at) VALUES ('memory.committed', 'mem_' || :n || ':1', 'raw', '{"memory_id":"mem"}', now());
INSERT INTO proposals (tenant_id, proposal_id, payload_hash, subject_id, scope_kind, scope_key, kind, normalized_key, stable_candidate_ordinal, message_id, message_revision, evidence_start, evidence_end, evidence_sha256, extractor_version, confidence, value_json, decision, reasons, state, memory_id, memory_version, expected_version, proposed_by, submitted_at, decided_at) VALUES ('raw', md5(:n::text) || md5(:n::text), md5(:n::text) || md5(:n::text), 's' || :n, 'user', 'u', 'preference', 'preference.editor', 0, 'm' || :n, 1, 0, 13, md5(:n::text) || md5(:n::text), 'x', 0.9, '"vim"', 'COMMIT', '[]', 'committed', 'mem_' || :n, 1, 0, 'x', now(), now());
INSERT INTO receipts (tenant_id, proposal_id, body, created_at) VALUES ('raw', md5(:n::text) || md5(:n::text), '{"decision":"COMMIT"}', now());
COMMIT;
