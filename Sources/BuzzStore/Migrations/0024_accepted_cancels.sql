-- A cancelling event counts from the API's 202, as an acknowledgment does: the API records its
-- mark as it accepts it, `pending` until the trigger stage has handled the event. A timer
-- (a window's moment, a wait's end) that comes while the trigger stage lags behind (after a
-- RabbitMQ restart, behind a backlog) replays its run's pending marks first, so nothing is
-- sent after a cancel the API took. Older servers do not write the column: their marks are
-- handled ones (false), as they always were.
ALTER TABLE cancel_marks ADD COLUMN pending boolean NOT NULL DEFAULT false;
-- Pending marks live for milliseconds: this index is all but empty, and asking it whether a
-- run's subscriber has one costs a window almost nothing.
CREATE INDEX cancel_marks_pending ON cancel_marks (tenant_id, subscriber_id) WHERE pending;
