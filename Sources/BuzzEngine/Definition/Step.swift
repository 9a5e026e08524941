import BuzzKitWire

/// One step: a unique name and what it does.
public struct Step: Sendable, Hashable {
    /// The step's name, unique in the workflow: 1–64 ASCII letters, digits, `.`, `_` or `-`,
    /// starting with a letter or digit (it becomes part of local ids and APNs collapse ids).
    public var name: String
    /// What the step does.
    public var kind: Kind

    /// What a step does; the JSON member next to `name`.
    public enum Kind: Sendable, Hashable {
        /// `waitUntil`: wait for a wall-clock time or an instant.
        case waitUntil(Step.WaitUntil)
        /// `delay`: wait for an elapsed time.
        case delay(Delay)
        /// `branch`: continue with `then` or `else`.
        case branch(Branch)
        /// `send`: a local or push notification.
        case send(Send)

        /// The JSON member name (`waitUntil`, `delay`, `branch`, `send`).
        public var name: String {
            switch self {
            case .waitUntil: return "waitUntil"
            case .delay: return "delay"
            case .branch: return "branch"
            case .send: return "send"
            }
        }

        /// The member names of every kind.
        public static let names = ["waitUntil", "delay", "branch", "send"]
    }

    /// A `waitUntil` step's two forms.
    public enum WaitUntil: Sendable, Hashable {
        /// `{"time": "HH:MM[:SS]", "timezone": "subscriber" | IANA}`: the next occurrence of a
        /// wall-clock time (docs/contract.md §3).
        case time(WallClockTime, zone: Zone)
        /// `{"at": RFC 3339 instant or template, "offset"?: "-1h30m"}`: an instant, usually from
        /// the trigger (`{{trigger.startsAt}}`), moved by the offset.
        case at(Template, offset: SignedDuration?)

        /// A `waitUntil.timezone`: the subscriber's zone or a fixed IANA zone.
        public enum Zone: Sendable, Hashable, CustomStringConvertible {
            /// `"subscriber"`: resolved when the wait begins (subscriber → tenant default → UTC).
            case subscriber
            /// A fixed IANA zone, checked when the definition is parsed.
            case named(String)

            /// `subscriber` or the zone name.
            public var description: String {
                switch self {
                case .subscriber: return "subscriber"
                case .named(let name): return name
                }
            }
        }
    }

    /// A `delay` step: `{"days"?, "hours"?, "minutes"?, "seconds"?}` with at least one member,
    /// each a non-negative integer; the parts add up. A day is 86,400 seconds (elapsed time,
    /// not a calendar day). The total is at most 400 days.
    public struct Delay: Sendable, Hashable {
        /// The `days` member as written.
        public var days: Int64?
        /// The `hours` member as written.
        public var hours: Int64?
        /// The `minutes` member as written.
        public var minutes: Int64?
        /// The `seconds` member as written.
        public var seconds: Int64?

        /// The total in seconds.
        public var totalSeconds: Int64 {
            (days ?? 0) * 86_400 + (hours ?? 0) * 3600 + (minutes ?? 0) * 60 + (seconds ?? 0)
        }
    }

    /// A `branch` step: `{"if": condition, "then": [steps], "else"?: [steps]}`.
    ///
    /// The condition is evaluated against the run's trigger event (its keys are the trigger's
    /// property paths). After the chosen list, the run continues with the step after the branch.
    public struct Branch: Sendable, Hashable {
        /// The condition.
        public var condition: Condition
        /// The steps when the condition holds (at least one).
        public var then: [Step]
        /// The steps otherwise (may be empty).
        public var `else`: [Step]

        /// A branch from its parts.
        public init(condition: Condition, then: [Step], else: [Step] = []) {
            self.condition = condition
            self.then = then
            self.else = `else`
        }
    }

    /// A `send` step: `{"deliver": "local"|"push", "title", "body", "deepLink"?, "data"?, "quietHours"?,
    /// "expiresAfter"?, "interruptionLevel"?, "sound"?, "threadId"?, "badge"?, "actions"?}`.
    public struct Send: Sendable, Hashable {
        /// How the notification reaches the person.
        public enum Delivery: String, Sendable, Hashable, CaseIterable {
            /// Planned on the device (a local window), with a push fallback.
            case local
            /// An ordinary push at once.
            case push
        }

        /// Local or push.
        public var deliver: Delivery
        /// The title; may use `{{trigger.<property>}}`.
        public var title: Template
        /// The body; may use `{{trigger.<property>}}`.
        public var body: Template
        /// A link to open on tap.
        public var deepLink: String?
        /// Free-form data handed to the app (`{}` when absent).
        public var data: [String: JSONValue]
        /// What quiet hours do to this send (default `shift`). For a push, a send reached inside
        /// quiet hours waits for the window's end.
        public var quietHours: QuietHours.Policy
        /// How long after its moment the notification is still worth showing, in seconds
        /// (`expiresAfter`: default one hour, at most seven days). The fallback and every alert
        /// carry `apns-expiration` at the moment plus this, the plan `expiresAt`; a push that
        /// keeps failing is retried until then and recorded `expired` after.
        public var expiresAfter: Int64
        /// Interruption level, sound, thread, badge, and the category of ``actions`` (DESIGN
        /// §4c): the plan and the fallback carry the same.
        public var presentation: NotificationPresentation
        /// The buttons (at most ``maximumActions``).
        public var actions: [NotificationAction]

        /// The most buttons a send may have (iOS shows four on a notification).
        public static let maximumActions = 4

        /// `expiresAfter` when a send leaves it out: one hour.
        public static let defaultExpiresAfter: Int64 = 3600
        /// The longest `expiresAfter`: seven days.
        public static let longestExpiresAfter: Int64 = 7 * 86_400

        /// A send from its parts.
        public init(deliver: Delivery, title: Template, body: Template, deepLink: String? = nil,
                    data: [String: JSONValue] = [:], quietHours: QuietHours.Policy = .shift,
                    expiresAfter: Int64 = Send.defaultExpiresAfter, presentation: NotificationPresentation = .standard,
                    actions: [NotificationAction] = []) {
            self.deliver = deliver
            self.title = title
            self.body = body
            self.deepLink = deepLink
            self.data = data
            self.quietHours = quietHours
            self.expiresAfter = expiresAfter
            self.actions = actions
            var presentation = presentation
            presentation.category = actions.isEmpty ? nil : PayloadBuilder.categoryId(for: actions)
            self.presentation = presentation
        }
    }
}
