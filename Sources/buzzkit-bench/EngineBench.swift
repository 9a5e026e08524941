import Foundation

/// The engine's figures (one thread): state-machine transitions and moment computations.
enum EngineBench {
    static func run(settings: BenchSettings, report: inout BenchReport) {
        FileHandle.standardError.write(Data("engine (one thread)...\n".utf8))
        let seconds = min(settings.seconds, 3)
        report.add("engine: run state-machine transitions/s (target 500,000)", TransitionBench.measure(seconds: seconds).rate, unit: "/s")
        report.add("engine: local-window moments/s (target 200,000)", MomentBench.measure(seconds: seconds).rate, unit: "/s")
    }
}
