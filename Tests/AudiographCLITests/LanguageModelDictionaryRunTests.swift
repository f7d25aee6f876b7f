import AudioGraphTestSupport
import Foundation
import Testing

/// The dictation graph loads the dictionary cut to its language model from the second run
/// on: same events as with the full dictionary, and without a writable cache.
@Suite struct LanguageModelDictionaryRunTests {
    @Test(.flite) func theCutDictionaryHearsTheSame() throws {
        let wav = try #require(Flite.speech("find japanese restaurants nearby"))
        let cache = CLI.tempDir().appendingPathComponent("cache")
        let env = ["AUDIOGRAPH_CACHE": cache.path]
        let first = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json"], environment: env)
        // The cut, and the record that the model files passed their checks.
        let kept = ((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).sorted()
        #expect(first.status == 0 && kept.count == 2 && kept[0].hasPrefix("checked-") && kept[1].hasSuffix(".dict"),
                "\(kept) \(first.stderr)")
        let second = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json"], environment: env)
        let unwritable = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json"],
                                     environment: ["AUDIOGRAPH_CACHE": "/proc/no/such/folder"])
        #expect(first.stdout.contains("\"final\"") && second.stdout == first.stdout && unwritable.stdout == first.stdout)
        #expect(unwritable.status == 0 && unwritable.stderr.isEmpty, "\(unwritable.stderr)")
    }
}
