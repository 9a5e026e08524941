import BuzzServerCore

// A process imports BuzzServer and gets the server's inner modules with it (the picture
// is in docs/architecture.md): vocabulary, store, pipeline, scheduler.
@_exported import BuzzPipeline
@_exported import BuzzScheduler
@_exported import BuzzServerCore
@_exported import BuzzStore
