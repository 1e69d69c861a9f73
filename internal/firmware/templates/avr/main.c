/* Firmware for {{.MCU.Refdes}} ({{.MCU.Value}}), scaffolded by copperhead.
 * Happy path: {{.HappyPath}}.
 * Pins come from pins.h, generated from {{.Source}}: never hard-code one here.
 */
#include <avr/io.h>
#include <util/delay.h>

#include "pins.h"

int main(void)
{
#if APP_HAS_LED
	APP_LED_DDR |= _BV(APP_LED_BIT);
#endif
#if APP_HAS_BUTTON
	/* ASSUMED: the button pulls its pin to ground; the internal pull-up
	 * holds it high otherwise. */
	APP_BUTTON_DDR &= (uint8_t)~_BV(APP_BUTTON_BIT);
	APP_BUTTON_PORT |= _BV(APP_BUTTON_BIT);
	uint8_t last = 1;
	for (;;) {
		uint8_t now = (APP_BUTTON_PINREG & _BV(APP_BUTTON_BIT)) ? 1 : 0;
		if (last && !now) {
			APP_LED_PORT ^= _BV(APP_LED_BIT); /* toggle on each press */
		}
		last = now;
		_delay_ms(20); /* debounce */
	}
#elif APP_HAS_LED
	for (;;) {
		APP_LED_PORT ^= _BV(APP_LED_BIT);
		_delay_ms(500);
	}
#else
	for (;;) {
	}
#endif
}
