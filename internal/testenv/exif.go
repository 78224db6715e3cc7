package testenv

import "encoding/binary"

// WithOrientation returns a copy of the JPEG in jpg with an EXIF APP1
// segment holding orientation o (1 to 8) right after its SOI marker, as a
// phone writes one for a photo taken upright or sideways.
func WithOrientation(jpg []byte, o uint16) []byte {
	// TIFF header (big-endian), one IFD of one entry: Orientation (0x0112),
	// SHORT, count 1, value o; no next IFD.
	tiff := []byte{'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(tiff[18:], o)
	payload := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, jpg[2:]...)
}
