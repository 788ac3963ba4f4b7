// A Swing window with a text field (focused at start) and a button, for XwaylandTests, run
// through Java's source launcher (java SwingForm.java).
//
// Prints, flushed, for the test that drives it:
//   entry at X Y W H / button at X Y W H   once shown, in root coordinates
//   text:TEXT                              on every change of the field
//   clicked                                when the button is clicked
import java.awt.BorderLayout;
import java.awt.Color;
import java.awt.Component;
import java.awt.Font;
import java.awt.Point;
import java.awt.event.ComponentAdapter;
import java.awt.event.ComponentEvent;
import javax.swing.BorderFactory;
import javax.swing.JButton;
import javax.swing.JFrame;
import javax.swing.JPanel;
import javax.swing.JTextField;
import javax.swing.SwingUtilities;
import javax.swing.Timer;
import javax.swing.event.DocumentEvent;
import javax.swing.event.DocumentListener;

public class SwingForm {
    static void report(String name, Component component) {
        Point origin = component.getLocationOnScreen();
        System.out.println(name + " at " + origin.x + " " + origin.y + " " + component.getWidth() + " " + component.getHeight());
    }

    public static void main(String[] arguments) {
        SwingUtilities.invokeLater(() -> {
            JFrame frame = new JFrame("vitrine-swing");
            frame.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            JPanel panel = new JPanel(new BorderLayout(0, 24));
            panel.setBackground(new Color(0x20, 0x40, 0x80));
            panel.setBorder(BorderFactory.createEmptyBorder(40, 40, 40, 40));
            JTextField field = new JTextField();
            field.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 20));
            // A steady caret, so that the screenshot does not depend on when it is taken.
            field.getCaret().setBlinkRate(0);
            JButton button = new JButton("Done");
            button.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 20));
            panel.add(field, BorderLayout.NORTH);
            panel.add(button, BorderLayout.SOUTH);
            frame.setContentPane(panel);
            field.getDocument().addDocumentListener(new DocumentListener() {
                public void insertUpdate(DocumentEvent event) { changed(); }
                public void removeUpdate(DocumentEvent event) { changed(); }
                public void changedUpdate(DocumentEvent event) { changed(); }
                void changed() { System.out.println("text:" + field.getText()); System.out.flush(); }
            });
            button.addActionListener(event -> { System.out.println("clicked"); System.out.flush(); });
            frame.setSize(300, 200);
            // Reported once the window manager's size has settled (it is made fullscreen).
            Timer settle = new Timer(500, event -> {
                report("entry", field);
                report("button", button);
                System.out.flush();
            });
            settle.setRepeats(false);
            frame.addComponentListener(new ComponentAdapter() {
                public void componentResized(ComponentEvent event) { settle.restart(); }
                public void componentShown(ComponentEvent event) { settle.restart(); }
            });
            frame.setVisible(true);
            field.requestFocusInWindow();
        });
    }
}
