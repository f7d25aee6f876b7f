import AudioGraphCore
import Foundation

/// Model files that passed ``SpeechModel``'s checks, remembered in the cache folder
/// (`CacheFolder`) by each file's ``FileStamp``. A later load of the
/// same unchanged files skips the checks, which read the whole acoustic model definition
/// and all 134k lines of Debian's dictionary (`Tools/bench model`); an edited, replaced or
/// removed file changes its stamp and is checked again.
///
/// A record holds the stamps it was made for and the model's phones; it is written under a
/// temporary name and renamed into place, and read back only whole and only if its stamps
/// are the files' stamps now. A folder that cannot be written just means checking each time.
enum CheckedModels {
    /// The files the checks read: the acoustic model's (those present) and the dictionary.
    static func files(hmm: String, dict: String) -> [String] {
        AcousticModelCheck.fileNames.map { (hmm as NSString).appendingPathComponent($0) } + [dict]
    }

    /// The phones recorded when these files passed, if they have not changed since.
    static func phones(hmm: String, dict: String, in folder: String? = CacheFolder.path) -> [String]? {
        guard let (path, stamps) = record(hmm: hmm, dict: dict, in: folder),
              let data = FileManager.default.contents(atPath: path) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        // "audiograph checked", the stamps, the phones, "end", "".
        guard lines.count == 5, lines[0] == header, lines[1] == stamps, lines[3] == "end", lines[4].isEmpty else { return nil }
        let phones = lines[2].split(separator: " ").map(String.init)
        return phones.isEmpty ? nil : phones
    }

    /// Records that these files passed, with the model's phones. Any thread.
    static func remember(hmm: String, dict: String, phones: [String], in folder: String? = CacheFolder.path) {
        guard let (path, stamps) = record(hmm: hmm, dict: dict, in: folder), let folder,
              (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
        else { return }
        let text = [header, stamps, phones.joined(separator: " "), "end", ""].joined(separator: "\n")
        // A name of its own: sessions in one process may check the same model at once.
        let temporary = path + ".\(UUID().uuidString).partial"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    private static let header = "audiograph checked"

    /// Where the record for these files is kept, and their stamps now (one line).
    private static func record(hmm: String, dict: String, in folder: String?) -> (String, String)? {
        guard let folder else { return nil }
        let stamps = FileStamp.of(all: files(hmm: hmm, dict: dict)).joined(separator: "\t")
        return (folder + "/checked-" + FileStamp.digest(stamps), stamps)
    }
}
