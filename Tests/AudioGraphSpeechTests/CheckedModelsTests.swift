import AudioGraphCore
@testable import AudioGraphSpeech
import Foundation
import Testing

/// Model files that passed the checks are not read again while unchanged, and a file that
/// changes after passing (edited, replaced, re-linked) is checked again.
@Suite(.enabled(if: SpeechModel.isDefaultInstalled, "Debian's pocketsphinx-en-us is not installed"))
struct CheckedModelsTests {
    let records = FileManager.default.temporaryDirectory.appendingPathComponent("checked-\(UUID().uuidString)").path

    func dictionary(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dict-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func aPassingModelIsRecordedWithItsPhones() throws {
        let hmm = try ModelFileCheckTests.model(replacing: "none", with: nil)
        let dict = try dictionary("hello HH AH L OW\n")
        #expect(CheckedModels.phones(hmm: hmm, dict: dict, in: records) == nil)
        let phones = try SpeechModel.checked(hmm: hmm, dict: dict, records: records)
        #expect(phones.count == 42 && phones.contains("SIL"))
        #expect(CheckedModels.phones(hmm: hmm, dict: dict, in: records) == phones)
        // Another dictionary beside the same model has a record of its own.
        #expect(CheckedModels.phones(hmm: hmm, dict: try dictionary("world W ER L D\n"), in: records) == nil)
    }

    @Test func anEditedDictionaryIsCheckedAgain() throws {
        let hmm = try ModelFileCheckTests.model(replacing: "none", with: nil)
        let dict = try dictionary("hello HH AH L OW\n")
        _ = try SpeechModel.checked(hmm: hmm, dict: dict, records: records)
        try Data("hello HH AH L OW\nbad QQ XX\n".utf8).write(to: URL(fileURLWithPath: dict))
        #expect(CheckedModels.phones(hmm: hmm, dict: dict, in: records) == nil)
        let error = #expect(throws: EngineError.self) { try SpeechModel.checked(hmm: hmm, dict: dict, records: records) }
        #expect(error?.parameter == "dict" && error?.message.contains("line 2: \"bad\"") == true, "\(String(describing: error))")
    }

    /// The model's files are often links (the tests' copies are): the stamp is that of the
    /// file the link points to, so a file damaged behind an unchanged link is checked again.
    @Test func aFileChangedBehindItsLinkIsCheckedAgain() throws {
        let hmm = try ModelFileCheckTests.model(replacing: "none", with: nil)
        let means = FileManager.default.temporaryDirectory.appendingPathComponent("means-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: SpeechModel.defaultHMM + "/means", toPath: means.path)
        try FileManager.default.removeItem(atPath: hmm + "/means")
        try FileManager.default.createSymbolicLink(atPath: hmm + "/means", withDestinationPath: means.path)
        let dict = try dictionary("hello HH AH L OW\n")
        _ = try SpeechModel.checked(hmm: hmm, dict: dict, records: records)
        #expect(CheckedModels.phones(hmm: hmm, dict: dict, in: records) != nil)
        let handle = try FileHandle(forWritingTo: means)
        try handle.write(contentsOf: ModelFileCheckTests.garbage)  // over the header, same size
        try handle.close()
        #expect(CheckedModels.phones(hmm: hmm, dict: dict, in: records) == nil)
        let error = #expect(throws: EngineError.self) { try SpeechModel.checked(hmm: hmm, dict: dict, records: records) }
        #expect(error?.parameter == "hmm" && error?.message.contains("no \"s3\" header") == true, "\(String(describing: error))")
    }

    /// A record cut short or for other files is not taken.
    @Test func aDamagedRecordIsIgnored() throws {
        let hmm = try ModelFileCheckTests.model(replacing: "none", with: nil)
        let dict = try dictionary("hello HH AH L OW\n")
        _ = try SpeechModel.checked(hmm: hmm, dict: dict, records: records)
        let record = try #require(try FileManager.default.contentsOfDirectory(atPath: records).first { $0.hasPrefix("checked-") })
        let path = records + "/" + record
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count - 4).write(to: URL(fileURLWithPath: path))
        #expect(CheckedModels.phones(hmm: hmm, dict: dict, in: records) == nil)
        // Checked again, and recorded whole again.
        _ = try SpeechModel.checked(hmm: hmm, dict: dict, records: records)
        #expect(CheckedModels.phones(hmm: hmm, dict: dict, in: records)?.count == 42)
    }
}
