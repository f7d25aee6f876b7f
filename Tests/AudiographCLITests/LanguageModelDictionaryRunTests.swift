import AudioGraphCore
import AudioGraphTestSupport
import Foundation
import Testing

/// The dictation graph loads the dictionary cut to its language model from the second run
/// on: same events as with the full dictionary, without a writable cache, and with pipes where
/// the cache's files go.
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
        // Every kept file a pipe, and one where the FFT plans go: each is made again, none
        // waited on (opening the dictionary's or FFTW's pipe held the process for ever).
        for name in kept + ["fftw-wisdom"] {
            let path = cache.appendingPathComponent(name).path
            try? FileManager.default.removeItem(atPath: path)
            #expect(mkfifo(path, 0o600) == 0)
        }
        let piped = try CLI.run(["run", "graphs/dictation.json", "--source", wav.path, "--json"], timeout: 60, environment: env)
        #expect(piped.status == 0 && piped.stdout == first.stdout, "\(piped.stderr)")
        #expect(PathKind(cache.appendingPathComponent(kept[1]).path) == .regular, "the cut is made again")
    }
}
