import Foundation
import HTTPServer

/// The console's files (`Sources/BuzzAPI/Console`: plain HTML, CSS and JavaScript, no build
/// step), read once from the module's resources and served from memory by exact name: a path
/// names one of them or nothing, so no request reaches the file system.
struct ConsoleAssets: Sendable {
    /// The file's bytes and its content type, by file name.
    let files: [String: (body: Data, contentType: String)]

    /// The policy every console response carries: scripts, styles and fetches from this
    /// origin only, no inline script or style, no framing, no plugins, no `<base>` tricks.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let contentTypes = ["html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
                               "css": "text/css; charset=utf-8", "svg": "image/svg+xml", "png": "image/png"]

    /// The files bundled with the module (none if the bundle is missing: the console then
    /// answers 404 and the API itself is unaffected). Looked up where SwiftPM puts the bundle,
    /// beside the executable (or the test runner), not through `Bundle.module`, which stops the
    /// process when the bundle is missing.
    static let bundled = ConsoleAssets(directory: bundledDirectory())

    static func bundledDirectory() -> URL? {
        let places = [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()].compactMap { $0 }
        return places.map { $0.appendingPathComponent("BuzzKit_BuzzAPI.resources/Console") }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    init(directory: URL?) {
        var files: [String: (Data, String)] = [:]
        let names = directory.flatMap { try? FileManager.default.contentsOfDirectory(atPath: $0.path) } ?? []
        for name in names {
            guard let directory, let type = Self.contentTypes[(name as NSString).pathExtension],
                  let body = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { continue }
            files[name] = (body, type)
        }
        self.files = files
    }

    /// The response for `name`: the file with the console's security headers, or 404.
    func response(_ name: String) -> HTTPResponse {
        guard let file = files[name] else {
            return HTTPError(status: 404, code: "not_found", message: "the console has no file \(name)").response
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", file.contentType)] + Self.securityHeaders, body: file.body)
    }

    static let securityHeaders = [("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
                                  ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"), ("Cache-Control", "no-cache")]
}
