-- Each install of the app says who it is when it registers (installId, kept in the app's files,
-- so it changes when the app is deleted and installed again). A token registered by a new
-- install retires the acknowledgments its earlier install made for open runs' windows: the
-- deleted app's local notifications went with it, so the fallback must cover them.
ALTER TABLE devices ADD COLUMN install_id text;
