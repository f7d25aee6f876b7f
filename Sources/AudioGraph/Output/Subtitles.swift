import AudioGraphCore
import Foundation

/// Subtitles from final results' word times: SubRip (`.srt`) and WebVTT (`.vtt`).
///
/// Each cue holds consecutive words of one result, at most two lines of `lineWidth`
/// characters and `maxDuration` seconds; a pause of `pause` seconds or more between words
/// starts a new cue. A cue shows from its first word's start to its last word's end (at least
/// `minDuration`, without running into the next cue). Results without word times get one
/// cue over the result's span.
public struct Subtitles: Sendable {
    /// One subtitle: its time span and its one or two lines.
    public struct Cue: Sendable, Equatable {
        /// When the cue shows, seconds from the start of the audio.
        public var start: Double
        /// When it goes.
        public var end: Double
        /// Its one or two lines.
        public var lines: [String]
        /// A cue showing `lines` from `start` to `end`.
        public init(start: Double, end: Double, lines: [String]) {
            (self.start, self.end, self.lines) = (start, end, lines)
        }
    }

    /// The cues, in time order.
    public private(set) var cues: [Cue] = []

    private let lineWidth: Int, maxDuration: Double, minDuration: Double, pause: Double

    /// Subtitles for `results` (finals, in order), with cues as described above.
    public init(_ results: [RecognitionResult], lineWidth: Int = 42, maxDuration: Double = 6,
                minDuration: Double = 0.7, pause: Double = 0.8) {
        (self.lineWidth, self.maxDuration, self.minDuration, self.pause) = (lineWidth, maxDuration, minDuration, pause)
        cues = results.flatMap(cues(of:))
        for i in cues.indices {
            var end = max(cues[i].end, cues[i].start + minDuration)
            if i + 1 < cues.count { end = min(end, cues[i + 1].start) }
            cues[i].end = max(end, cues[i].start)
        }
    }

    private func cues(of result: RecognitionResult) -> [Cue] {
        guard !result.words.isEmpty else {
            let text = result.text.trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? [] : [Cue(start: result.start, end: result.end, lines: wrap(text.split(separator: " ").map(String.init)))]
        }
        var out: [Cue] = []
        var words: [RecognitionResult.Word] = []
        func close() {
            guard let first = words.first, let last = words.last else { return }
            out.append(Cue(start: first.start, end: last.end, lines: wrap(words.map(\.word))))
            words = []
        }
        for w in result.words {
            if let first = words.first, let last = words.last {
                let text = (words.map(\.word) + [w.word]).joined(separator: " ")
                if w.start - last.end >= pause || w.end - first.start > maxDuration
                    || wrap(text.split(separator: " ").map(String.init)).count > 2 {
                    close()
                }
            }
            words.append(w)
        }
        close()
        return out
    }

    /// Words in lines of at most `lineWidth` characters (a longer word gets a line of its own).
    private func wrap(_ words: [String]) -> [String] {
        var lines: [String] = []
        var line = ""
        for w in words {
            if line.isEmpty { line = w } else if line.count + 1 + w.count <= lineWidth { line += " " + w } else {
                lines.append(line)
                line = w
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// SubRip: numbered cues, `00:00:01,200 --> 00:00:02,900`.
    public var srt: String {
        cues.enumerated().map { i, c in
            "\(i + 1)\n\(Self.time(c.start, ",")) --> \(Self.time(c.end, ","))\n" + c.lines.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// WebVTT: a `WEBVTT` header, then cues `00:00:01.200 --> 00:00:02.900`.
    public var webVTT: String {
        "WEBVTT\n\n" + cues.map { c in
            "\(Self.time(c.start, ".")) --> \(Self.time(c.end, "."))\n" + c.lines.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// `hh:mm:ss` and milliseconds after `separator`.
    static func time(_ t: Double, _ separator: String) -> String {
        let ms = max(0, Int((t * 1000).rounded()))
        let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms / 1000 % 60, f = ms % 1000
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let frac = f < 10 ? "00\(f)" : f < 100 ? "0\(f)" : "\(f)"
        return "\(two(h)):\(two(m)):\(two(s))\(separator)\(frac)"
    }
}
