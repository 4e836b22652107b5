package report

import (
	"bytes"
	"codeberg.org/go-pdf/fpdf"
	"fmt"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
)

// pdfCanvas is a vg.Canvas drawing a one-page PDF whose text is set in the
// figures' own TrueType fonts, embedded as Unicode (subset) fonts.
// gonum/plot's vgpdf encodes text in code page 1252, which has no Greek:
// κ and α came out as "Îº" and "Î±". Coordinates are vg's (points, origin
// bottom left, y up) — PDF's own — so transforms pass straight through
// as "cm" operators; only fpdf's top-left path coordinates are flipped.
type pdfCanvas struct {
	doc    *fpdf.Fpdf
	w, h   vg.Length
	fonts  map[string]bool
	images int
	stack  []pdfState
}

// pdfState is what Push saves and Pop restores besides the PDF's own
// graphics state (which q/Q restore).
type pdfState struct {
	col   color.NRGBA
	width vg.Length
}

func newPDFCanvas(w, h vg.Length) *pdfCanvas {
	doc := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetMargins(0, 0, 0)
	doc.SetAutoPageBreak(false, 0)
	doc.SetCompression(true)
	doc.AddPage()
	doc.TransformBegin() // transforms need an open context; closed in WriteTo
	c := &pdfCanvas{doc: doc, w: w, h: h, fonts: map[string]bool{}, stack: []pdfState{{}}}
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) state() *pdfState { return &c.stack[len(c.stack)-1] }

// Size is the page size.
func (c *pdfCanvas) Size() (vg.Length, vg.Length) { return c.w, c.h }

// WriteTo writes the PDF.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	for len(c.stack) > 1 {
		c.Pop()
	}
	c.doc.TransformEnd()
	var b bytes.Buffer
	if err := c.doc.Output(&b); err != nil {
		return 0, fmt.Errorf("pdf: %w", err)
	}
	return b.WriteTo(w)
}

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.state().width = w
	c.doc.SetLineWidth(w.Points())
}

func (c *pdfCanvas) SetLineDash(pattern []vg.Length, offset vg.Length) {
	ds := make([]float64, len(pattern))
	for i, d := range pattern {
		ds[i] = d.Points()
	}
	c.doc.SetDashPattern(ds, offset.Points())
}

func (c *pdfCanvas) SetColor(col color.Color) {
	if col == nil {
		col = color.Black
	}
	n := color.NRGBAModel.Convert(col).(color.NRGBA)
	c.state().col = n
	c.doc.SetDrawColor(int(n.R), int(n.G), int(n.B))
	c.doc.SetFillColor(int(n.R), int(n.G), int(n.B))
	c.doc.SetTextColor(int(n.R), int(n.G), int(n.B))
	c.doc.SetAlpha(float64(n.A)/255, "Normal")
}

func (c *pdfCanvas) Rotate(rad float64) {
	s, k := math.Sincos(rad)
	c.doc.Transform(fpdf.TransformMatrix{A: k, B: s, C: -s, D: k})
}

func (c *pdfCanvas) Translate(pt vg.Point) {
	c.doc.Transform(fpdf.TransformMatrix{A: 1, D: 1, E: pt.X.Points(), F: pt.Y.Points()})
}

func (c *pdfCanvas) Scale(x, y float64) {
	c.doc.Transform(fpdf.TransformMatrix{A: x, D: y})
}

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.state())
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	if len(c.stack) == 1 {
		return
	}
	c.stack = c.stack[:len(c.stack)-1]
	c.doc.TransformEnd()
	// Q restored the PDF's colour and width; fpdf's record of them is
	// brought back in line.
	st := *c.state()
	c.SetColor(st.col)
	c.SetLineWidth(st.width)
}

// xy maps a vg point to fpdf's top-left coordinates.
func (c *pdfCanvas) xy(p vg.Point) (float64, float64) {
	return p.X.Points(), c.h.Points() - p.Y.Points()
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.state().width <= 0 {
		return
	}
	c.path(p, "D")
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "f") }

// path adds p to the page and strokes ("D") or fills ("f") it. Arcs are
// drawn as cubic Bézier pieces of at most 90°.
func (c *pdfCanvas) path(p vg.Path, style string) {
	var start vg.Point
	open := false
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			c.doc.MoveTo(c.xy(comp.Pos))
			start, open = comp.Pos, true
		case vg.LineComp:
			c.doc.LineTo(c.xy(comp.Pos))
		case vg.CurveComp:
			x, y := c.xy(comp.Pos)
			switch len(comp.Control) {
			case 1:
				cx, cy := c.xy(comp.Control[0])
				c.doc.CurveTo(cx, cy, x, y)
			case 2:
				cx, cy := c.xy(comp.Control[0])
				dx, dy := c.xy(comp.Control[1])
				c.doc.CurveBezierCubicTo(cx, cy, dx, dy, x, y)
			}
		case vg.ArcComp:
			r := comp.Radius
			at := func(a float64) vg.Point {
				return vg.Point{X: comp.Pos.X + r*vg.Length(math.Cos(a)), Y: comp.Pos.Y + r*vg.Length(math.Sin(a))}
			}
			p0 := at(comp.Start)
			if open {
				c.doc.LineTo(c.xy(p0))
			} else {
				c.doc.MoveTo(c.xy(p0))
				start, open = p0, true
			}
			n := int(math.Ceil(math.Abs(comp.Angle) / (math.Pi / 2)))
			step := comp.Angle / float64(max(n, 1))
			k := 4.0 / 3 * math.Tan(step/4) * float64(r)
			for i := range n {
				a0, a1 := comp.Start+step*float64(i), comp.Start+step*float64(i+1)
				q0, q1 := at(a0), at(a1)
				c1 := vg.Point{X: q0.X - vg.Length(k*math.Sin(a0)), Y: q0.Y + vg.Length(k*math.Cos(a0))}
				c2 := vg.Point{X: q1.X + vg.Length(k*math.Sin(a1)), Y: q1.Y - vg.Length(k*math.Cos(a1))}
				x1, y1 := c.xy(c1)
				x2, y2 := c.xy(c2)
				x3, y3 := c.xy(q1)
				c.doc.CurveBezierCubicTo(x1, y1, x2, y2, x3, y3)
			}
		case vg.CloseComp:
			c.doc.ClosePath()
			c.doc.MoveTo(c.xy(start))
		}
	}
	c.doc.DrawPath(style)
}

// FillString writes text with its baseline starting at pt, in the face's
// TrueType font embedded for Unicode.
func (c *pdfCanvas) FillString(f font.Face, pt vg.Point, str string) {
	if f.Font.Size == 0 || str == "" {
		return
	}
	name := f.Name()
	if !c.fonts[name] {
		var b bytes.Buffer
		if _, err := f.Face.WriteSourceTo(nil, &b); err != nil {
			c.doc.SetErrorf("font %s: %v", name, err)
			return
		}
		c.doc.AddUTF8FontFromBytes(name, "", b.Bytes())
		c.fonts[name] = true
	}
	c.doc.SetFont(name, "", f.Font.Size.Points())
	x, y := c.xy(pt)
	c.doc.Text(x, y, str)
}

// DrawImage draws img scaled into rect.
func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		c.doc.SetError(err)
		return
	}
	c.images++
	name := fmt.Sprintf("image%d", c.images)
	opt := fpdf.ImageOptions{ImageType: "png"}
	c.doc.RegisterImageOptionsReader(name, opt, &b)
	x, y := c.xy(vg.Point{X: rect.Min.X, Y: rect.Max.Y})
	c.doc.ImageOptions(name, x, y, (rect.Max.X - rect.Min.X).Points(), (rect.Max.Y - rect.Min.Y).Points(), false, opt, 0, "")
}
