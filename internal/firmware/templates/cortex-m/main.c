/* Firmware for {{.MCU.Refdes}} ({{.MCU.Value}}), scaffolded by copperhead.
 * Happy path: {{.HappyPath}}.
 * Pins come from pins.h, generated from {{.Source}}: never hard-code one here.
 */
#include "board.h"
#include "pins.h"

int main(void)
{
	board_init();
#if APP_HAS_LED
	gpio_output(APP_LED_GPIO);
#endif
#if APP_HAS_BUTTON
	/* ASSUMED: the button pulls its pin to ground. */
	gpio_input_pullup(APP_BUTTON_GPIO);
	int led = 0, last = 1;
	for (;;) {
		int now = gpio_read(APP_BUTTON_GPIO);
		if (last && !now) {
			led = !led; /* toggle on each press */
			gpio_write(APP_LED_GPIO, led);
		}
		last = now;
		delay_ms(20); /* debounce */
	}
#elif APP_HAS_LED
	for (int led = 0;; led = !led) {
		gpio_write(APP_LED_GPIO, led);
		delay_ms(500);
	}
#else
	for (;;) {
	}
#endif
}
