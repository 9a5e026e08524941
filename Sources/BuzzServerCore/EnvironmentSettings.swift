import Foundation

/// A settings struct read from `BUZZKIT_*` environment variables over its documented
/// defaults: it lists its variables once, in ``settings``, and gets reading and checking from
/// that list. `main` alone hands it the environment (through `Configuration`).
public protocol EnvironmentSettings {
    /// The documented defaults.
    init()
    /// Every variable it reads, in the order they are checked.
    static var settings: [Setting<Self>] { get }
}

extension EnvironmentSettings {
    /// The defaults with every variable that is set and not empty read over them, unchecked
    /// (``checkSettings()`` checks).
    public init(environment: [String: String]) throws {
        self.init()
        try read(environment)
    }

    /// Reads every variable of ``settings`` that is set and not empty; text that does not
    /// parse is a configuration error naming the variable.
    public mutating func read(_ environment: [String: String]) throws {
        for setting in Self.settings {
            guard let text = environment[setting.name], !text.isEmpty else { continue }
            try setting.read(&self, text)
        }
    }

    /// Checks every variable of ``settings`` and names the first wrong one.
    public func checkSettings() throws {
        for setting in Self.settings { try setting.check(self) }
    }

    /// Every variable's name.
    public static var variableNames: [String] { settings.map(\.name) }
}
