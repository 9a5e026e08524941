/// Why a pipeline message could not be processed.
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    /// Permanent errors dead-letter the message at once; others are retried.
    public var permanent: Bool
    public var message: String

    public static func permanent(_ message: String) -> PipelineError { PipelineError(permanent: true, message: message) }

    public var description: String { message }
}
