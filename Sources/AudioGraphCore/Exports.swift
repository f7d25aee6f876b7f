// The results the engine reports are the ones a remote client gets (AudioGraphResults).
@_exported import AudioGraphResults
