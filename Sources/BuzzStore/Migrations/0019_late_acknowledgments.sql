-- An acknowledgment that arrives after its window's fallback was decided does not count, and the
-- device is told so (issue 45, race 3: a slow API answered a last-second acknowledgment after the
-- moment; the phone kept its copy, the server had sent the fallback, and the person saw the
-- reminder twice).
--
-- fallback-check row-locks a window's plan (FOR UPDATE) before it reads the window's
-- acknowledgments, and sets fallback_decided_at when it decides to send the fallback; recording
-- an acknowledgment takes FOR KEY SHARE on the same row first. So the two are ordered: an
-- acknowledgment recorded first is seen by the decision, and one that waited for the decision
-- reads fallback_decided_at, is not recorded, and is answered as late.
ALTER TABLE local_plans ADD COLUMN fallback_decided_at timestamptz;
-- Room on each page for that one update to stay a heap-only tuple (the column has no index).
ALTER TABLE local_plans SET (fillfactor = 80);
