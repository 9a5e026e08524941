import BuzzEngine
import HTTPServer

/// A refused workflow definition answers `422 invalid_workflow`, listing every problem with
/// its path.
extension EngineError: HTTPErrorConvertible {
    public var httpError: HTTPError {
        let all = problems.isEmpty ? [self] : problems
        return HTTPError(status: 422, code: "invalid_workflow", message: all.map { "\($0)" }.joined(separator: "; "), field: all.first?.path,
                         problems: all.map { HTTPError.Problem(field: $0.path, message: $0.message) })
    }
}
